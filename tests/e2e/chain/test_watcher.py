"""The chain watcher finds transfers to watched addresses and follows them through confirmations and AML."""

from __future__ import annotations

from decimal import Decimal

from tests.e2e.chain.conftest import DENIED_SENDER, Heard
from tests.e2e.chain.rig import fresh_address

THRESHOLD = 3  # the dev chain's confirmations


def test_a_usdt_transfer_to_a_watched_address_is_recorded_as_submitted(chain, rig):
    address = rig.watch(from_block=chain.head())
    sent = chain.send_token("USDT", 1, address, 12_345_678)
    rig.run_pass()
    t = rig.transfer(sent.tx_hash)
    assert (t.status, t.confirmations, t.aml_status) == ("submitted", 0, "")
    assert (t.asset_id, t.amount_base, t.decimals) == ("USDT-ETH-TEST", Decimal(12_345_678), 6)
    assert (t.to_address, t.from_address) == (address, chain.accounts[1].address.lower())
    assert (t.block_number, t.owner_id, t.network) == (sent.block_number, "ch_test", "ETH-TEST")
    assert t.log_index >= 0 and t.id.startswith("tx_")


def test_a_native_eth_transfer_to_a_watched_address_is_recorded(chain, rig):
    address = rig.watch(from_block=chain.head())
    sent = chain.send_eth(2, address, 1_500_000_000_000_000_001)
    rig.run_pass()
    t = rig.transfer(sent.tx_hash)
    assert (t.asset_id, t.amount_base, t.decimals, t.log_index) == ("ETH-ETH-TEST", Decimal(1_500_000_000_000_000_001),
                                                                     18, -1)
    assert (t.status, t.from_address) == ("submitted", chain.accounts[2].address.lower())


def test_a_usdc_transfer_is_recorded_with_the_usdc_asset(chain, rig):
    address = rig.watch(from_block=chain.head())
    sent = chain.send_token("USDC", 1, address, 5_000_000)
    rig.run_pass()
    assert rig.transfer(sent.tx_hash).asset_id == "USDC-ETH-TEST"


def test_an_amount_beyond_float_precision_is_kept_exact(chain, rig):
    huge = 2**200 + 1
    chain.tokens["USDT"].functions.mint(chain.accounts[3].address, huge).transact({"from": chain.accounts[0].address})
    address = rig.watch(from_block=chain.head())
    sent = chain.send_token("USDT", 3, address, huge)
    rig.run_pass()
    assert rig.transfer(sent.tx_hash).amount_base == Decimal(huge)


def test_a_transfer_moves_submitted_confirming_confirmed_as_blocks_are_mined(chain, rig):
    address = rig.watch(from_block=chain.head())
    sent = chain.send_token("USDT", 1, address, 1_000_000)
    seen = []
    for _ in range(THRESHOLD + 1):
        rig.run_pass()
        t = rig.transfer(sent.tx_hash)
        seen.append((t.status, t.confirmations))
        chain.mine()
    assert seen == [("submitted", 0), ("confirming", 1), ("confirming", 2), ("confirmed", 3)]


def test_listeners_hear_each_status_change_with_the_previous_status(chain, rig, heard):
    address = rig.watch(from_block=chain.head())
    sent = chain.send_eth(1, address, 10**18)
    for _ in range(THRESHOLD + 1):
        rig.run_pass()
        chain.mine()
    assert [h for h in heard if h.tx_hash == sent.tx_hash] == [
        Heard(sent.tx_hash, "", "submitted", "", ""),
        Heard(sent.tx_hash, "submitted", "confirming", "", ""),
        Heard(sent.tx_hash, "confirming", "confirmed", "", ""),
        Heard(sent.tx_hash, "confirmed", "confirmed", "", "approved"),
    ]


def test_a_transfer_found_after_its_threshold_is_recorded_as_confirmed_at_once(chain, rig, heard):
    address = rig.watch(from_block=chain.head())
    sent = chain.send_token("USDC", 1, address, 7)
    chain.mine(THRESHOLD + 2)
    rig.run_pass()
    assert (rig.transfer(sent.tx_hash).status, rig.transfer(sent.tx_hash).confirmations) == ("confirmed", THRESHOLD + 2)
    assert [(h.previous_status, h.status) for h in heard] == [("", "confirmed"), ("confirmed", "confirmed")]


def test_a_confirmed_transfer_from_a_clean_sender_is_approved(chain, rig):
    address = rig.watch(from_block=chain.head())
    sent = chain.send_token("USDT", 1, address, 1_000_000)
    chain.mine(THRESHOLD)
    rig.run_pass()
    t = rig.transfer(sent.tx_hash)
    assert (t.status, t.aml_status, t.aml_info) == ("confirmed", "approved", "")


def test_aml_waits_for_confirmation(chain, rig):
    address = rig.watch(from_block=chain.head())
    sent = chain.send_token("USDT", DENIED_SENDER, address, 1_000_000)
    chain.mine(THRESHOLD - 1)
    rig.run_pass()
    assert (rig.transfer(sent.tx_hash).status, rig.transfer(sent.tx_hash).aml_status) == ("confirming", "")


def test_a_transfer_from_a_deny_listed_sender_is_rejected_with_aml_info(chain, rig, heard):
    address = rig.watch(from_block=chain.head())
    sent = chain.send_token("USDT", DENIED_SENDER, address, 1_000_000)
    chain.mine(THRESHOLD)
    rig.run_pass()
    t = rig.transfer(sent.tx_hash)
    assert (t.status, t.aml_status) == ("confirmed", "rejected")
    assert chain.accounts[DENIED_SENDER].address.lower() in t.aml_info and "deny list" in t.aml_info
    assert heard[-1] == Heard(sent.tx_hash, "confirmed", "confirmed", "", "rejected")


def test_async_aml_leaves_the_status_empty_then_decides_on_a_later_pass(chain, async_rig, heard):
    address = async_rig.watch(from_block=chain.head())
    sent = chain.send_eth(DENIED_SENDER, address, 10**17)
    chain.mine(THRESHOLD)
    async_rig.run_pass()
    assert (async_rig.transfer(sent.tx_hash).status, async_rig.transfer(sent.tx_hash).aml_status) == ("confirmed", "")
    async_rig.run_pass()
    assert async_rig.transfer(sent.tx_hash).aml_status == "rejected"
    assert [(h.previous_aml, h.aml_status) for h in heard] == [("", ""), ("", "rejected")]


def test_transfers_to_unwatched_addresses_are_ignored(chain, rig):
    watched = rig.watch(from_block=chain.head())
    ignored_token = chain.send_token("USDT", 1, fresh_address(), 1_000_000)
    ignored_eth = chain.send_eth(1, fresh_address(), 10**15)
    found = chain.send_eth(1, watched, 10**15)
    rig.run_pass()
    hashes = {t.tx_hash for t in rig.transfers()}
    assert found.tx_hash in hashes and not {ignored_token.tx_hash, ignored_eth.tx_hash} & hashes


def test_a_transfer_before_the_address_from_block_is_ignored(chain, rig):
    address = fresh_address()
    early = chain.send_eth(1, address, 10**15)
    rig.watch(address, from_block=early.block_number + 1)
    later = chain.send_eth(1, address, 2 * 10**15)
    rig.run_pass()
    assert [t.tx_hash for t in rig.transfers(address)] == [later.tx_hash]


def test_a_transfer_after_watch_until_is_not_recorded(chain, rig):
    # watch_until is the quote's (or intent's) expiry plus the grace for late funds: past it the address is no longer
    # scanned, so addresses of long-dead attempts do not slow every pass (finding 9).
    address = rig.watch(from_block=chain.head(), watch_until=1)  # the charge expired long ago; its row remains
    sent = chain.send_token("USDT", 1, address, 1_000_000)
    rig.run_pass()
    assert sent.tx_hash not in {t.tx_hash for t in rig.transfers()}


def test_the_scan_looks_only_for_addresses_whose_watch_has_not_ended(chain, rig):
    live = rig.watch(from_block=chain.head())
    ended = rig.watch(from_block=chain.head(), watch_until=rig.db.clock.now() - 1)
    watched = rig.run(rig.watcher._watched())
    assert live in watched and ended not in watched


def test_a_transfer_before_watch_until_is_recorded(chain, rig):
    address = rig.watch(from_block=chain.head(), watch_until=rig.db.clock.now() + 60)
    sent = chain.send_token("USDT", 1, address, 1_000_000)
    rig.run_pass()
    assert rig.transfer(sent.tx_hash).status == "submitted"
