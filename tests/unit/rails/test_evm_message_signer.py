"""Whose key signed a text, as EVM wallets sign text (EIP-191 `personal_sign`): the proof of a payout address
(DESIGN §16). Pure functions, no node."""

from __future__ import annotations

import pytest
from eth_account import Account
from eth_account.messages import encode_defunct
from eth_account.signers.local import LocalAccount

from server.rails.base import InvalidSignature, MessageSigning
from server.rails.evm.derivation import EvmKeys

KEYS = EvmKeys()
TEXT = "paygate payout address verification\nNonce: 00"


def signature_of(account: LocalAccount, text: str) -> bytes:
    return bytes(account.sign_message(encode_defunct(text=text)).signature)


def test_the_evm_family_signs_messages() -> None:
    assert isinstance(KEYS, MessageSigning)


def test_the_signer_of_a_personal_sign_signature_is_its_address_in_stored_form() -> None:
    account = Account.create()
    assert KEYS.message_signer(TEXT, "0x" + signature_of(account, TEXT).hex()) == account.address.lower()


def test_a_signature_with_v_0_or_1_names_the_same_signer() -> None:
    account = Account.create()
    raw = signature_of(account, TEXT)
    low_v = raw[:64] + bytes([raw[64] - 27])
    assert KEYS.message_signer(TEXT, "0x" + low_v.hex()) == account.address.lower()


def test_a_signature_of_another_text_names_another_signer() -> None:
    account = Account.create()
    assert KEYS.message_signer(TEXT + "1", "0x" + signature_of(account, TEXT).hex()) != account.address.lower()


@pytest.mark.parametrize("signature", ["", "0x", "0x" + "11" * 64, "0x" + "11" * 66, "11" * 65, "0x" + "zz" * 65])
def test_a_signature_that_is_not_65_bytes_of_0x_hex_is_malformed(signature: str) -> None:
    with pytest.raises(InvalidSignature, match="65 bytes"):
        KEYS.message_signer(TEXT, signature)


@pytest.mark.parametrize("signature", ["0x" + "11" * 65, "0x" + "00" * 65, "0x" + "ff" * 65])
def test_a_signature_whose_r_s_or_v_is_out_of_range_is_malformed(signature: str) -> None:
    with pytest.raises(InvalidSignature, match="out of range"):
        KEYS.message_signer(TEXT, signature)
