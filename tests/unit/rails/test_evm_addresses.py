"""What the EVM rail accepts as an address, and the one form it stores (lower-case 0x…): pure functions, no node."""

from __future__ import annotations

import pytest

from server.rails.base import InvalidAddress
from server.rails.evm.transactions import normalize_address

LOWER = "0xd8da6bf26964af9d7eed9e03e53415d37aa96045"
CHECKSUMMED = "0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045"  # LOWER with its EIP-55 checksum


def test_a_lower_case_address_is_stored_as_given() -> None:
    assert normalize_address(LOWER) == LOWER


def test_a_checksummed_address_is_stored_lower_case() -> None:
    assert normalize_address(CHECKSUMMED) == LOWER


def test_an_upper_case_address_with_an_upper_case_prefix_is_stored_lower_case() -> None:
    assert normalize_address("0X" + LOWER[2:].upper()) == LOWER


def test_forty_hex_digits_without_the_0x_prefix_are_refused() -> None:
    with pytest.raises(InvalidAddress, match="0x"):
        normalize_address(LOWER[2:])


def test_a_checksummed_address_without_the_0x_prefix_is_refused() -> None:
    with pytest.raises(InvalidAddress):
        normalize_address(CHECKSUMMED[2:])


def test_the_zero_address_is_refused() -> None:
    with pytest.raises(InvalidAddress, match="zero address"):
        normalize_address("0x" + "0" * 40)


def test_the_zero_address_with_an_upper_case_prefix_is_refused() -> None:
    with pytest.raises(InvalidAddress, match="zero address"):
        normalize_address("0X" + "0" * 40)


def test_a_mixed_case_address_with_a_wrong_checksum_is_refused_naming_the_checksum() -> None:
    with pytest.raises(InvalidAddress, match="checksum"):
        normalize_address(CHECKSUMMED.replace("dA", "Da", 1))


@pytest.mark.parametrize("value", ["", "0x", "0x" + "1" * 39, "0x" + "1" * 41, "0x" + "g" * 40,
                                   "0x" + "\u0661" * 40, " " + LOWER, "0x" + LOWER])
def test_something_that_is_not_an_address_is_refused(value: str) -> None:
    with pytest.raises(InvalidAddress):
        normalize_address(value)
