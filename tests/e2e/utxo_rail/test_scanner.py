"""The scanner on a real litecoind: payments seen in the mempool, then in a block; outputs as transfers; a block
invalidated; BIP-125 replacements. Each test is one coroutine (a scanner's connections belong to one event loop);
the node is driven with blocking calls in between."""

from __future__ import annotations

from decimal import Decimal

from embit.script import Script
from embit.transaction import Transaction, TransactionOutput

from server.rails.utxo.addresses import script_of
from tests.litecoin import MNEMONIC, Litecoin, run


def _sender(litecoin: Litecoin, txid: str) -> str:
    """The address the first input of `txid` spent, as the node itself says."""
    first = litecoin.call("getrawtransaction", txid, True)["vin"][0]
    parent = litecoin.call("getrawtransaction", first["txid"], True)
    return str(parent["vout"][first["vout"]]["scriptPubKey"]["addresses"][0])


def _vout_to(litecoin: Litecoin, txid: str, address: str) -> int:
    outputs = litecoin.call("getrawtransaction", txid, True)["vout"]
    return next(int(o["n"]) for o in outputs if o["scriptPubKey"].get("addresses") == [address])


def test_the_scanner_sees_a_payment_to_a_deposit_address_in_the_mempool_then_in_a_block(
        litecoin: Litecoin, account: int) -> None:
    address = litecoin.keys.deposit_address(MNEMONIC, account, 0)

    async def scenario() -> None:
        scanner = litecoin.scanner()
        txid = litecoin.pay(address, Decimal("0.12345678"))
        vout = _vout_to(litecoin, txid, address)
        seen = await scanner.mempool_transfers({address})
        assert [(t.tx_hash, t.log_index, t.amount_base, t.block_number, t.block_hash) for t in seen] == [
            (txid, vout, 12_345_678, 0, "")]
        assert seen[0].asset_id == "LTC-LTC-TEST" and seen[0].decimals == 8 and seen[0].to_address == address
        assert seen[0].from_address == _sender(litecoin, txid) != ""

        block = litecoin.mine()[0]
        height = litecoin.head()
        assert await scanner.mempool_transfers({address}) == []
        result = await scanner.scan(height, height, {address})
        assert [(t.tx_hash, t.log_index, t.amount_base, t.block_number, t.block_hash) for t in result.transfers] == [
            (txid, vout, 12_345_678, height, block)]
        assert result.hashes == {height: block}
        assert result.parent_hash == litecoin.call("getblockhash", height - 1)
        assert result.times[height] == litecoin.call("getblockheader", block)["time"]
        assert result.transfers[0].from_address == _sender(litecoin, txid)
        found, head = await scanner.transfers_of(txid, {address})
        assert found == result.transfers and head == height
        await scanner.close()

    run(scenario())


def test_a_scan_without_recipients_reports_the_hashes_and_times_of_the_range(litecoin: Litecoin) -> None:
    async def scenario() -> None:
        litecoin.mine(3)
        head = litecoin.head()
        scanner = litecoin.scanner()
        await scanner.check()
        assert await scanner.head() == head
        result = await scanner.scan(head - 2, head, set())
        assert result.hashes == {n: litecoin.call("getblockhash", n) for n in range(head - 2, head + 1)}
        assert set(result.times) == set(result.hashes) and result.transfers == []
        assert await scanner.block_hash(head) == result.hashes[head]
        assert await scanner.block_hash(head + 1) is None
        await scanner.close()

    run(scenario())


def test_a_payment_in_two_outputs_to_one_address_is_two_transfers(litecoin: Litecoin, account: int) -> None:
    address = litecoin.keys.deposit_address(MNEMONIC, account, 0)
    script = Script(script_of("rltc", address))

    async def scenario() -> None:
        # The wallet's RPCs refuse one address twice, so the payer funds and signs a transaction made here.
        unfunded = Transaction(version=2, vin=[], vout=[TransactionOutput(1_000_000, script),
                                                        TransactionOutput(2_500_000, script)]).serialize().hex()
        funded = litecoin.wallet("fundrawtransaction", unfunded, {}, False)["hex"]
        signed = litecoin.wallet("signrawtransactionwithwallet", funded)["hex"]
        txid = litecoin.call("sendrawtransaction", signed)
        outputs = litecoin.call("getrawtransaction", txid, True)["vout"]
        ours = sorted((int(o["n"]), int(Decimal(o["value"]).scaleb(8))) for o in outputs
                      if o["scriptPubKey"].get("addresses") == [address])
        assert sorted(value for _, value in ours) == [1_000_000, 2_500_000]

        scanner = litecoin.scanner()
        pooled = await scanner.mempool_transfers({address})
        assert sorted((t.log_index, t.amount_base) for t in pooled) == ours
        litecoin.mine()
        height = litecoin.head()
        mined = (await scanner.scan(height, height, {address})).transfers
        assert sorted((t.tx_hash, t.log_index, t.amount_base) for t in mined) == [(txid, n, v) for n, v in ours]
        await scanner.close()

    run(scenario())


def test_an_invalidated_block_changes_the_canonical_hash_and_its_transfer_is_gone_from_a_rescan(
        litecoin: Litecoin, account: int) -> None:
    address = litecoin.keys.deposit_address(MNEMONIC, account, 0)

    async def scenario() -> None:
        scanner = litecoin.scanner()
        txid = litecoin.pay(address, Decimal("0.5"))
        old = litecoin.mine()[0]
        height = litecoin.head()
        result = await scanner.scan(height, height, {address})
        assert [t.tx_hash for t in result.transfers] == [txid] and result.hashes[height] == old

        litecoin.call("invalidateblock", old)
        # generateblock mines only the transactions it is given: the new block at `height` leaves the payment out.
        new = litecoin.call("generateblock", litecoin.dev.mining_address, [])["hash"]
        assert litecoin.head() == height
        assert await scanner.block_hash(height) == new != old
        result = await scanner.scan(height, height, {address})
        assert result.hashes == {height: new} and result.transfers == []
        # The re-organisation put the payment back into the mempool, where it is seen again.
        assert [t.tx_hash for t in await scanner.mempool_transfers({address})] == [txid]
        assert await scanner.transfers_of(txid, {address}) == ([], height)
        assert (await scanner.status_of(txid)).state == "mempool"
        await scanner.close()

    run(scenario())


def _inputs_value(litecoin: Litecoin, txid: str) -> tuple[list[dict[str, object]], Decimal]:
    vin = litecoin.call("getrawtransaction", txid, True)["vin"]
    total = sum((Decimal(litecoin.call("getrawtransaction", i["txid"], True)["vout"][i["vout"]]["value"])
                 for i in vin), Decimal(0))
    return [{"txid": i["txid"], "vout": i["vout"]} for i in vin], total


def test_a_replacement_paying_another_address_removes_the_original_from_the_mempool(
        litecoin: Litecoin, account: int) -> None:
    first = litecoin.keys.deposit_address(MNEMONIC, account, 0)
    other = litecoin.keys.deposit_address(MNEMONIC, account, 1)

    async def scenario() -> None:
        scanner = litecoin.scanner()
        original = litecoin.pay(first, Decimal("1.25"), replaceable=True)
        seen = await scanner.mempool_transfers({first, other})
        assert [(t.tx_hash, t.to_address, t.amount_base) for t in seen] == [(original, first, 125_000_000)]

        inputs, total = _inputs_value(litecoin, original)
        # The same inputs, all to `other`, with a fee well above the original's: a BIP-125 replacement.
        raw = litecoin.call("createrawtransaction", inputs, [{other: total - Decimal("0.001")}], 0, True)
        replacement = litecoin.call("sendrawtransaction", litecoin.wallet("signrawtransactionwithwallet", raw)["hex"])
        assert original not in await scanner.mempool_txids()
        assert (await scanner.status_of(original)).state == "absent"
        seen = await scanner.mempool_transfers({first, other})
        assert [(t.tx_hash, t.to_address, t.log_index, t.amount_base) for t in seen] == [
            (replacement, other, 0, int((total - Decimal("0.001")).scaleb(8)))]

        litecoin.mine()
        height = litecoin.head()
        result = await scanner.scan(height, height, {first, other})
        assert [(t.tx_hash, t.to_address) for t in result.transfers] == [(replacement, other)]
        assert (await scanner.status_of(replacement)).state == "mined"
        assert (await scanner.status_of(original)).state == "absent"
        await scanner.close()

    run(scenario())


def test_a_fee_bump_replaces_the_payment_with_a_new_txid_paying_the_same_output(
        litecoin: Litecoin, account: int) -> None:
    address = litecoin.keys.deposit_address(MNEMONIC, account, 0)

    async def scenario() -> None:
        scanner = litecoin.scanner()
        original = litecoin.pay(address, Decimal("0.3"), replaceable=True)
        assert [t.tx_hash for t in await scanner.mempool_transfers({address})] == [original]
        bumped = litecoin.wallet("bumpfee", original)["txid"]
        assert bumped != original
        txids = await scanner.mempool_txids()
        assert bumped in txids and original not in txids
        seen = await scanner.mempool_transfers({address})
        assert [(t.tx_hash, t.amount_base) for t in seen] == [(bumped, 30_000_000)]
        litecoin.mine()
        await scanner.close()

    run(scenario())
