"""Refunds of crypto payments, paid in the original asset from the merchant's treasury (DESIGN §5, §6).

    service.create ──► Pending ──(sender: sign, record, broadcast)──► Processing ──(confirmed)──► Success
                          └──────────────(cannot be sent)──────────────────┴──────(reverted)────► Failed

`states.py` holds the one table of legal moves; `payout_job.py` is the scheduler job that pays refunds out through
their network's rail (`server/rails/`: it builds, signs, sends and follows the transactions).
"""
