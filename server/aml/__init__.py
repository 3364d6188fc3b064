"""AML screening of confirmed incoming transfers, behind one interface.

A `Screener` answers `screen(transfer) -> Verdict`: `approved`, `rejected` (with `info`), or `''` while it is still
checking. The built-in `DenyListScreener` rejects a transfer any of whose senders (`screener.senders`: every input of
a UTXO transaction) is on the configured `aml_deny_list`. `Screening` applies verdicts to transfers in one of two
modes (`aml_mode`):

* `sync`  — the transfer is screened in the transaction that confirms it (for local screeners only: no I/O there);
* `async` — confirming records a pending `AmlCheck`; a later watcher pass asks the screener, outside any
  transaction, and records its verdict (or `decide()` records one that arrived from elsewhere, e.g. a callback).

Every verdict is kept as an `AmlCheck` row (which screener decided what, and when).
"""

from server.aml.models import CheckStatus
from server.aml.screener import AmlStatus, DenyList, DenyListScreener, Screener, Verdict
from server.aml.service import Screening, decide

__all__ = ["AmlStatus", "CheckStatus", "DenyList", "DenyListScreener", "Screener", "Screening", "Verdict", "decide"]
