"""Merchants and their API keys (test and live)."""
