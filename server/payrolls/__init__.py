"""Payrolls (DESIGN §17): many payouts to verified addresses in one call, confirmed and approved as one.

models.py (the rows), states.py (the payroll's status, computed from its items' payouts), service.py (making,
confirming, reading), convert.py (rows → proto), servicer.py (gRPC), wiring.py (SERVICES). Each item is an ordinary
payout (`payouts.payroll_id`); the approval API (server/treasury/approvals/service.py) decides a payroll as one.
"""
