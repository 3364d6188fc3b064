"""The screening interface and the built-in deny-list screener."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from server.chains.models import ChainTransfer
from server.rails.base import AddressBook, InvalidAddress


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


class DenyList:
    """The configured deny list, compared on each network in that network's stored form (its rail's `AddressBook`):
    EVM hex matches in any case, a base58 address only exactly; an entry that is no address on a network never
    matches there. Without books (`books` None) entries and addresses are compared as given, both stored forms."""

    def __init__(self, entries: Iterable[str], books: Callable[[str], AddressBook | None] | None = None) -> None:
        self._entries = frozenset(entries)
        self._books = books
        self._by_network: dict[str, frozenset[str]] = {}

    def _stored(self, network: str) -> tuple[AddressBook | None, frozenset[str]]:
        book = self._books(network) if self._books is not None else None
        if network not in self._by_network:
            self._by_network[network] = frozenset(_forms(book, self._entries))
        return book, self._by_network[network]

    def denies(self, network: str, address: str) -> bool:
        book, denied = self._stored(network)
        if book is None:
            return address in denied
        try:
            return book.normalize_address(address) in denied
        except InvalidAddress:
            return False  # no address here (a sender the rail could not name): nothing to match


def _forms(book: AddressBook | None, entries: Iterable[str]) -> Iterable[str]:
    for entry in entries:
        if book is None:
            yield entry
            continue
        try:
            yield book.normalize_address(entry)
        except InvalidAddress:
            continue  # another family's address


def senders(transfer: ChainTransfer) -> tuple[str, ...]:
    """Every address the transfer's transaction spent from, each once: `from_address` and, where the rail names
    many (a UTXO transaction's inputs), all of them (`from_addresses`)."""
    return tuple(dict.fromkeys([transfer.from_address, *(transfer.from_addresses or ())]))


class DenyListScreener:
    """Rejects transfers any of whose senders is on the deny list (one deny-listed input taints a UTXO payment);
    approves the rest."""

    name = "deny_list"

    def __init__(self, deny_list: DenyList | frozenset[str]) -> None:
        self._deny = deny_list if isinstance(deny_list, DenyList) else DenyList(deny_list)

    def screen(self, transfer: ChainTransfer) -> Verdict:
        for sender in senders(transfer):
            if self._deny.denies(transfer.network, sender):
                return Verdict(AmlStatus.REJECTED, f"sender {sender} is on the deny list")
        return Verdict(AmlStatus.APPROVED)
