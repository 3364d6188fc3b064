"""The chain watcher: finds transfers to watched addresses and follows them to `confirmed` (or `reverted`).

* `lease.py`   — the NetworkCursor row as a lease, so one watcher at a time scans a network;
* `watcher.py` — one pass over one network: resume point, re-organisations, batches of blocks;
* `recording.py` — the transfers' statuses and every change told to `server.chains.hooks` listeners;
* `same_transfer.py` — which stored row a transfer seen on chain is, across re-organisations;
* `mempool.py` — a rail that reads its node's mempool: payments listed before they are mined, replaced ones ended.

The chain itself is read through a rail's `ChainScanner` (`server.rails`); AML screening is `server.aml`.
The scheduler runs a pass per network every few seconds (`scheduler/chain_watch.py`).
"""

from server.watcher.watcher import NetworkWatcher, PassReport

__all__ = ["NetworkWatcher", "PassReport"]
