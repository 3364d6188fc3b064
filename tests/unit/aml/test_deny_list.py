"""The deny list is compared in each network's own address form (issue 34, the seam): EVM hex in any case, a
case-sensitive address only exactly, and an entry of another family never matches."""

from __future__ import annotations

from web3 import Web3

from server.aml import DenyList
from server.rails.base import AddressBook, InvalidAddress

EVM_SENDER = "0x8576acc5c05d6ce88f4e49bf65bdf0c62f91353c"


class CaseSensitiveBook:
    """A family whose addresses are case-sensitive (as base58 is): `B` and 33 letters or digits, kept as given."""

    def normalize_address(self, value: str) -> str:
        if len(value) != 34 or not value.startswith("B") or not value.isascii() or not value.isalnum():
            raise InvalidAddress(f"{value!r} is not a B address")
        return value

    def normalize_tx_hash(self, value: str) -> str:
        return value


CASED = "B" + "aBcD" * 8 + "e"


class EvmBook:
    def normalize_address(self, value: str) -> str:
        from server.rails.evm import transactions

        return transactions.normalize_address(value)

    def normalize_tx_hash(self, value: str) -> str:
        return value


def books(network: str) -> AddressBook | None:
    return {"ETH-TEST": EvmBook(), "B-TEST": CaseSensitiveBook()}.get(network)


def test_an_evm_entry_matches_its_sender_in_any_case() -> None:
    deny = DenyList([EVM_SENDER], books)
    assert deny.denies("ETH-TEST", Web3.to_checksum_address(EVM_SENDER))
    assert deny.denies("ETH-TEST", "0x" + EVM_SENDER[2:].upper())


def test_a_case_sensitive_entry_matches_only_its_exact_spelling() -> None:
    deny = DenyList([CASED], books)
    assert deny.denies("B-TEST", CASED)
    assert not deny.denies("B-TEST", CASED.lower().replace("b", "B", 1))


def test_an_entry_of_another_family_never_matches_there() -> None:
    deny = DenyList([EVM_SENDER, CASED], books)
    assert not deny.denies("B-TEST", EVM_SENDER)
    assert not deny.denies("ETH-TEST", CASED)


def test_a_sender_the_rail_cannot_name_is_not_denied() -> None:
    assert not DenyList([EVM_SENDER], books).denies("ETH-TEST", "")
