"""The ledger (DESIGN §15): postings of two or more legs summing to zero, their listeners, balances, reconciliation."""
