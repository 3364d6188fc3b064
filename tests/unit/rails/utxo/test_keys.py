"""UtxoKeys against BIP-84's own test vectors (mnemonic "abandon … about", mainnet bc, coin type 0, account 0), and
on Litecoin regtest's parameters."""

from __future__ import annotations

import pytest
from embit import bech32
from embit.ec import PrivateKey
from embit.hashes import hash160

from server.rails.base import KeyScheme
from server.rails.utxo.derivation import UtxoKeys

MNEMONIC = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
BITCOIN = UtxoKeys("bc", 0)
REGTEST = UtxoKeys("rltc", 1)


def test_the_deposit_addresses_are_bip84_receive_addresses() -> None:
    assert BITCOIN.deposit_address(MNEMONIC, 0, 0) == "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu"  # m/84'/0'/0'/0/0
    assert BITCOIN.deposit_address(MNEMONIC, 0, 1) == "bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g"  # m/84'/0'/0'/0/1


def test_the_treasury_is_the_first_bip84_change_address() -> None:
    assert BITCOIN.treasury_address(MNEMONIC, 0) == "bc1q8c6fshw2dlwun7ekn9qwf37cu2rn755upcp6el"  # m/84'/0'/0'/1/0


def test_the_deposit_key_is_bip84s_private_key_of_the_first_receive_address() -> None:
    wif = "KyZpNDKnfs94vbrwhJneDi77V6jF64PWPF8x5cdJb8ifgg2DUc9d"  # BIP-84: m/84'/0'/0'/0/0
    key = BITCOIN.deposit_key(MNEMONIC, 0, 0)
    assert len(key) == 32 and key == PrivateKey.from_wif(wif).secret
    assert PrivateKey(key).sec().hex() == "0330d54fd0dd420a6e5f8d3624f5f3482cae350f79d5f0753bf5beef9c2d91af3c"


def _owner(address: str, key: bytes) -> bool:
    _, program = bech32.decode(address[: address.rfind("1")], address)
    return program is not None and bytes(program) == hash160(PrivateKey(key).sec())


def test_each_key_spends_its_own_address_on_litecoin_regtest() -> None:
    for index in (0, 1, 7):
        address = REGTEST.deposit_address(MNEMONIC, 3, index)
        assert address.startswith("rltc1q") and address == address.lower()
        assert _owner(address, REGTEST.deposit_key(MNEMONIC, 3, index))
    assert _owner(REGTEST.treasury_address(MNEMONIC, 3), REGTEST.treasury_key(MNEMONIC, 3))
    assert _owner(REGTEST.change_address(MNEMONIC, 3, 2), REGTEST.change_key(MNEMONIC, 3, 2))


def test_accounts_indexes_and_coin_types_give_distinct_addresses() -> None:
    seen = {REGTEST.deposit_address(MNEMONIC, a, i) for a in range(3) for i in range(3)}
    seen |= {REGTEST.treasury_address(MNEMONIC, a) for a in range(3)}
    seen |= {REGTEST.change_address(MNEMONIC, a, n) for a in range(3) for n in (1, 2)}
    assert len(seen) == 9 + 3 + 6
    assert UtxoKeys("rltc", 2).deposit_address(MNEMONIC, 0, 0) != REGTEST.deposit_address(MNEMONIC, 0, 0)


def test_change_addresses_start_after_the_treasury() -> None:
    assert REGTEST.change_address(MNEMONIC, 0, 1) != REGTEST.treasury_address(MNEMONIC, 0)
    with pytest.raises(ValueError, match="treasury"):
        REGTEST.change_address(MNEMONIC, 0, 0)


def test_the_same_key_on_another_hrp_is_the_same_program() -> None:
    # m/84'/0'/0'/0/0 written for Litecoin mainnet: the witness program of BIP-84's first address, prefix ltc.
    assert UtxoKeys("ltc", 0).deposit_address(MNEMONIC, 0, 0) == "ltc1qcr8te4kr609gcawutmrza0j4xv80jy8z4nqduv"


def test_it_is_a_key_scheme_and_shows_addresses_as_stored() -> None:
    assert isinstance(REGTEST, KeyScheme)
    address = REGTEST.deposit_address(MNEMONIC, 0, 0)
    assert REGTEST.display_address(address) == address
