"""Sweeps (DESIGN §15): confirmed, approved funds moved from deposit addresses into the merchant's treasury."""
