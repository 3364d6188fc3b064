"""Selling-plan groups and their plans (DESIGN §17)."""
