"""Refunds' part of the composition root: the job that signs, sends and follows refund transactions."""

from __future__ import annotations

from server.refunds import sender
from server.runtime import Runtime


def register(rt: Runtime) -> None:
    rt.add_job("send_refunds", sender.send_refunds, sender.INTERVAL_SECONDS)
