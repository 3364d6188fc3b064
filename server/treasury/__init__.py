"""The treasury (DESIGN §15): the merchant's money as an append-only double-entry ledger, and (next) sweeps into
the treasury address, balances, payout addresses and payouts."""
