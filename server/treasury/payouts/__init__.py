"""Payouts (DESIGN §15): from the treasury to a verified payout address, under four eyes."""
