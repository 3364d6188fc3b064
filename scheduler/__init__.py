"""Periodic jobs (APScheduler). Each job claims its work in the database, so any number of copies can run."""
