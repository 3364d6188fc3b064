"""The screening interface and the built-in deny-list screener."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from server.chains.models import ChainTransfer


class AmlStatus(StrEnum):
    """A transfer's `aml_status` (the spec's values) and a screener's verdict."""

    CHECKING = ""  # no screener has decided yet
    APPROVED = "approved"
    REJECTED = "rejected"


@dataclass(frozen=True)
class Verdict:
    status: AmlStatus
    info: str = ""  # why, when rejected

    @property
    def decided(self) -> bool:
        return self.status != AmlStatus.CHECKING


class Screener(Protocol):
    """Decides whether the funds of one transfer may be accepted. `name` is recorded with each verdict."""

    name: str

    def screen(self, transfer: ChainTransfer) -> Verdict: ...


class DenyListScreener:
    """Rejects transfers whose sender is on the deny list (lower-case 0x addresses); approves the rest."""

    name = "deny_list"

    def __init__(self, deny_list: frozenset[str]) -> None:
        self._deny = frozenset(a.lower() for a in deny_list)

    def screen(self, transfer: ChainTransfer) -> Verdict:
        if transfer.from_address.lower() in self._deny:
            return Verdict(AmlStatus.REJECTED, f"sender {transfer.from_address} is on the deny list")
        return Verdict(AmlStatus.APPROVED)
