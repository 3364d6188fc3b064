"""What the UTXO rail accepts as an address of Litecoin regtest (hrp rltc), its stored form, and what it refuses
(with a reason). The valid samples were checked with the node's validateaddress."""

from __future__ import annotations

from decimal import Decimal

import pytest

from server.rails.base import InvalidAddress, InvalidTxHash
from server.rails.utxo.addresses import address_of, normalize_address, normalize_tx_hash, payment_uri, script_of

P2WPKH = "rltc1q6rz28mcfaxtmd6v789l9rrlrusdprr9puuzgkg"
P2WSH = "rltc1qqqqsyqcyq5rqwzqfpg9scrgwpugpzysnzs23v9ccrydpk8qarc0ss3aytx"
P2TR = "rltc1pqypqxpq9qcrsszg2pvxq6rs0zqg3yyc5z5tpwxqergd3c8g7rusquyeyyt"
P2PKH = "mguoC4m1pdnUvpvfqw1ASsBfFRnQBY435o"  # version 0x6f
P2SH = "QbTNh2MULwrZzSBKovVd8o2PSsQKSa7VNj"  # version 0x3a, what litecoind writes
P2SH_OLD = "2N86ca1VEKqoUrFRHBpTc46axJUxVWR14u4"  # the same script with Bitcoin's testnet version 0xc4
SEGWIT_V2 = "rltc1zqqqsyqcyq5rqwzqfpg9scrgwpugpzysnzs23v9ccrydpk8qarc0sjmyza3"


@pytest.mark.parametrize("address", [P2WPKH, P2WSH, P2TR])
def test_a_bech32_address_is_stored_lower_case(address: str) -> None:
    assert normalize_address("rltc", address) == address
    assert normalize_address("rltc", address.upper()) == address


@pytest.mark.parametrize("address", [P2PKH, P2SH, P2SH_OLD])
def test_a_base58_address_is_kept_exactly(address: str) -> None:
    assert normalize_address("rltc", address) == address


def test_a_mixed_case_bech32_address_is_refused() -> None:
    mixed = P2WPKH[:10] + P2WPKH[10:].upper()
    with pytest.raises(InvalidAddress, match="mixes upper and lower case"):
        normalize_address("rltc", mixed)


def test_a_base58_address_changed_in_case_fails_its_checksum() -> None:
    with pytest.raises(InvalidAddress, match="checksum"):
        normalize_address("rltc", P2PKH[:4] + P2PKH[4].swapcase() + P2PKH[5:])  # "C" → "c"


def test_a_bech32_address_with_a_wrong_character_fails_its_checksum() -> None:
    broken = P2WPKH[:-1] + ("q" if P2WPKH[-1] != "q" else "p")
    with pytest.raises(InvalidAddress, match="checksum"):
        normalize_address("rltc", broken)


@pytest.mark.parametrize(("address", "hrp"), [
    ("bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu", "'bc'"),
    ("tb1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq0l98cr", "'tb'"),
    ("ltc1qcr8te4kr609gcawutmrza0j4xv80jy8z4nqduv", "'ltc'"),
])
def test_an_address_of_another_network_is_refused_naming_its_prefix(address: str, hrp: str) -> None:
    with pytest.raises(InvalidAddress, match=f"another network.*{hrp}"):
        normalize_address("rltc", address)


@pytest.mark.parametrize("address", ["LKDyUEtTR1HXamkiEphisSiBJu6o3ZPE34", "112D2adLM3UKy4Z4giRbReR6gjWuvHUqB"])
def test_a_base58_address_of_another_network_is_refused_naming_its_version(address: str) -> None:
    with pytest.raises(InvalidAddress, match="version byte"):
        normalize_address("rltc", address)


def test_a_future_segwit_version_is_refused() -> None:
    with pytest.raises(InvalidAddress, match="segwit version 2"):
        normalize_address("rltc", SEGWIT_V2)


def test_an_mweb_address_is_refused_as_such() -> None:
    mweb = ("tmweb1qqvth8sna0qz3k6vqwydqducc28gtgfef0lgexr9dpsjt0tmvmx0ccqarcqfasuu52fae4yht2n4kmuk245jpyysqc7yk"
            "aq2trp09wuz225hhs5ws")
    with pytest.raises(InvalidAddress, match="MWEB"):
        normalize_address("rltc", mweb)


@pytest.mark.parametrize("value", [
    "", " " + P2WPKH, P2WPKH + " ", P2WPKH + "\n", P2WPKH[:8] + " " + P2WPKH[8:], "\t" + P2PKH,
    P2WPKH.replace("q", "\u0071\u0301", 1),  # a combining accent
    P2PKH.replace("1", "\u0661"),  # an Arabic-Indic digit one
    "rltc1" + "\u0968" * 20,  # Devanagari digits
    P2WPKH.replace("rltc", "rlt\u0441"),  # a Cyrillic es for the "c"
    "rltc1", "1", "0" * 64, P2PKH[:-1], P2PKH + "1", "0x" + "ab" * 20,
])
def test_hostile_input_is_refused(value: str) -> None:
    with pytest.raises(InvalidAddress):
        normalize_address("rltc", value)


def test_a_base58_address_on_a_network_without_base58_versions_is_refused() -> None:
    with pytest.raises(InvalidAddress, match="only bech32"):
        normalize_address("xyz", P2PKH)


@pytest.mark.parametrize("address", [P2WPKH, P2WSH, P2TR, P2PKH, P2SH])
def test_an_address_and_its_script_convert_both_ways(address: str) -> None:
    assert address_of("rltc", script_of("rltc", address)) == address


def test_the_old_p2sh_version_pays_the_same_script_as_the_new_one() -> None:
    assert script_of("rltc", P2SH_OLD) == script_of("rltc", P2SH)
    assert address_of("rltc", script_of("rltc", P2SH_OLD)) == P2SH  # written as the node writes it


def test_a_script_without_an_address_has_none() -> None:
    assert address_of("rltc", bytes.fromhex("6a0401020304")) == ""  # OP_RETURN


def test_a_transaction_id_is_stored_lower_case() -> None:
    txid = "A1" * 32
    assert normalize_tx_hash(txid) == "a1" * 32


@pytest.mark.parametrize("value", ["", "a1" * 31, "a1" * 33, "0x" + "a1" * 31, "0x" + "a1" * 32, "g1" * 32,
                                   " " + "a1" * 31 + "a", "\u0661" * 64, "a1" * 31 + "\uff41\uff41"])
def test_something_that_is_not_a_transaction_id_is_refused(value: str) -> None:
    with pytest.raises(InvalidTxHash):
        normalize_tx_hash(value)


def test_a_payment_uri_carries_the_amount_in_plain_decimal_coins() -> None:
    assert payment_uri("litecoin", P2WPKH, Decimal("0.12345678")) == f"litecoin:{P2WPKH}?amount=0.12345678"
    assert payment_uri("litecoin", P2WPKH, Decimal("10.50000000")) == f"litecoin:{P2WPKH}?amount=10.5"
    assert payment_uri("litecoin", P2WPKH, Decimal("1E+1")) == f"litecoin:{P2WPKH}?amount=10"
    assert payment_uri("litecoin", P2WPKH, Decimal("0.00000001")) == f"litecoin:{P2WPKH}?amount=0.00000001"
    assert payment_uri("litecoin", P2WPKH) == f"litecoin:{P2WPKH}"


@pytest.mark.parametrize("amount", [Decimal("0.000000001"), Decimal(0), Decimal(-1), Decimal("NaN"),
                                    Decimal("Infinity")])
def test_a_payment_uri_refuses_an_amount_it_cannot_carry_exactly(amount: Decimal) -> None:
    with pytest.raises(ValueError):
        payment_uri("litecoin", P2WPKH, amount)


def test_a_payment_uri_refuses_a_scheme_that_is_not_one() -> None:
    with pytest.raises(ValueError):
        payment_uri("lite coin", P2WPKH, Decimal(1))
