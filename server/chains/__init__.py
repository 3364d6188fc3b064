"""Chains: what is watched on which network, what was seen there, and how far each network has been scanned.

The seam between the chain watcher and the payments domain:
* payments add `WatchedAddress` rows (a deposit address, for as long as its charge can still receive funds);
* the watcher writes `ChainTransfer` rows for transfers to watched addresses and moves them through
  `submitted` → `confirming` → `confirmed` (or `reverted` when a re-organisation drops them), then AML screening
  sets `aml_status`; after every such change, in the same transaction, it calls each listener of the database
  (`hooks.listen`, from payments' `register(runtime)`) so that payments update charges and intents and record their
  events.
"""
