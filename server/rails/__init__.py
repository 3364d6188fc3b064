"""Rails: how paygate talks to the outside world where money moves, one plug-in per kind of network.

A chain rail gives the chain watcher a `ChainScanner` for a network (`base.py`); `registry.py` picks the rail for each
network of the catalogue. Today every network is EVM (`evm/`: JSON-RPC client, scanner, the local dev chain); adding
another chain family is a new package and one registry entry, not edits to the watcher.
"""
