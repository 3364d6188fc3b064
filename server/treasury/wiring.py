"""The treasury's part of the composition root: the ledger's listeners on transfers and refund events, and the
jobs that sweep deposit addresses into the treasury, send micro-deposits and payouts, reconcile the ledger with
the chain, and end approvals nobody gave in time."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from server.chains import hooks
from server.events import outbox
from server.runtime import Runtime
from server.treasury.addresses import verifications
from server.treasury.addresses.servicer import AddressServicer
from server.treasury.approvals import expiry as approval_expiry
from server.treasury.ledger import listeners, reconcile
from server.treasury.payouts.servicer import PayoutServicer
from server.treasury.servicer import TreasuryServicer
from server.treasury.sweeps import service as sweeps

# The gRPC services this package implements (the API's full names); composition registers them.
SERVICES: dict[str, Callable[[Runtime], object]] = {
    "paygate.v1.AddressService": AddressServicer,
    "paygate.v1.PayoutService": PayoutServicer,
    "paygate.v1.TreasuryService": TreasuryServicer,
}


def register(rt: Runtime) -> None:
    rt.add_servicers(SERVICES)
    hooks.listen(rt.db, stage=hooks.Stage.POST, listener=partial(listeners.on_transfer_changed, rt))
    outbox.subscribe(rt.db, partial(listeners.on_event, rt))
    rt.add_job("send_sweeps", sweeps.send_sweeps, sweeps.INTERVAL_SECONDS)
    rt.add_job("send_treasury_transfers", verifications.send_verifications, verifications.INTERVAL_SECONDS)
    rt.add_job("reconcile_treasury", reconcile.reconcile_job, reconcile.interval_seconds())
    rt.add_job("expire_approvals", approval_expiry.expire_approvals, approval_expiry.INTERVAL_SECONDS)
