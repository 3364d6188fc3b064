"""The deny-list screener reads every sender of a transfer (issue 34): a UTXO transaction spends coins of many
addresses, and any one of them on the deny list rejects the payment; a transfer with one sender (EVM) is screened on
`from_address` as before."""

from __future__ import annotations

from decimal import Decimal

from server.aml import AmlStatus, DenyList, DenyListScreener
from server.chains.models import ChainTransfer
from server.rails.base import AddressBook
from server.rails.utxo import addresses
from server.rails.utxo.derivation import UtxoKeys

MNEMONIC = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
KEYS = UtxoKeys("rltc", 1)
FIRST, SECOND, THIRD, DENIED = (KEYS.deposit_address(MNEMONIC, 7, i) for i in range(4))
EVM_SENDER, EVM_DENIED = "0x" + "11" * 20, "0x" + "dd" * 20


class LtcBook:
    def normalize_address(self, value: str) -> str:
        return addresses.normalize_address("rltc", value)

    def normalize_tx_hash(self, value: str) -> str:
        return addresses.normalize_tx_hash(value)


def books(network: str) -> AddressBook | None:
    return LtcBook() if network == "LTC-TEST" else None


def transfer(network: str, from_address: str, from_addresses: list[str] | None = None) -> ChainTransfer:
    return ChainTransfer(id="tx_1", network=network, tx_hash="ab" * 32, log_index=0, block_number=10,
                         block_hash="cd" * 32, from_address=from_address, from_addresses=from_addresses,
                         to_address=FIRST, asset_id="LTC-LTC-TEST", amount_base=Decimal(1), decimals=8,
                         owner_id="ch_1", status="confirmed", created_at=1, updated_at=1)


def screener(*denied: str) -> DenyListScreener:
    return DenyListScreener(DenyList(denied, books))


def test_a_payment_whose_second_input_is_deny_listed_is_rejected_naming_that_sender() -> None:
    verdict = screener(DENIED).screen(transfer("LTC-TEST", FIRST, [FIRST, DENIED]))
    assert verdict.status == AmlStatus.REJECTED
    assert verdict.info == f"sender {DENIED} is on the deny list"


def test_a_payment_whose_last_of_several_inputs_is_deny_listed_is_rejected() -> None:
    verdict = screener(DENIED).screen(transfer("LTC-TEST", FIRST, [FIRST, SECOND, THIRD, DENIED]))
    assert verdict.status == AmlStatus.REJECTED


def test_a_payment_whose_inputs_are_all_clean_is_approved() -> None:
    assert screener(DENIED).screen(transfer("LTC-TEST", FIRST, [FIRST, SECOND, THIRD])).status == AmlStatus.APPROVED


def test_a_deny_listed_sender_is_found_in_another_letter_case_of_a_bech32_input() -> None:
    verdict = screener(DENIED).screen(transfer("LTC-TEST", FIRST, [FIRST, DENIED.upper()]))
    assert verdict.status == AmlStatus.REJECTED


def test_an_input_the_rail_could_not_name_does_not_reject_the_others() -> None:
    assert screener(DENIED).screen(transfer("LTC-TEST", FIRST, [FIRST, ""])).status == AmlStatus.APPROVED


def test_a_transfer_with_one_sender_is_screened_on_its_from_address() -> None:
    assert screener(EVM_DENIED).screen(transfer("ETH-TEST", EVM_DENIED)).status == AmlStatus.REJECTED
    assert screener(EVM_DENIED).screen(transfer("ETH-TEST", EVM_SENDER)).status == AmlStatus.APPROVED


def test_a_deny_listed_first_sender_rejects_even_when_the_list_of_senders_is_empty() -> None:
    assert screener(DENIED).screen(transfer("LTC-TEST", DENIED, [])).status == AmlStatus.REJECTED
