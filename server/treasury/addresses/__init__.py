"""Payout addresses (DESIGN §15, §16): screened, proven by signature or micro-deposit, approved."""
