"""Customers: the merchant's shoppers, their sign-in by one-time code, and what they bought."""
