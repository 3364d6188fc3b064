"""What the scanner tells the watcher through the seam (issue 34): every input's sender of a paying transaction, in
the mempool and in a block, and which transactions seen unmined have vanished (replaced, double-spent) rather than
being mined. On a real litecoind; each test is one coroutine."""

from __future__ import annotations

from decimal import Decimal

from server.rails.base import MempoolReader
from tests.litecoin import MNEMONIC, Litecoin, run


def test_the_utxo_scanner_is_a_mempool_reader(litecoin: Litecoin) -> None:
    assert isinstance(litecoin.scanner(), MempoolReader)


def test_a_transfer_names_every_input_sender_in_order_from_the_mempool_and_from_its_block(
        litecoin: Litecoin, account: int) -> None:
    address = litecoin.keys.deposit_address(MNEMONIC, account, 0)
    first = litecoin.funded_wallet(f"inputs-a-{account}", Decimal("1"))
    second = litecoin.funded_wallet(f"inputs-b-{account}", Decimal("1"))

    async def scenario() -> None:
        scanner = litecoin.scanner()
        txid = litecoin.pay_from_many([(f"inputs-a-{account}", first), (f"inputs-b-{account}", second)], address,
                                      Decimal("1.5"))
        [pooled] = await scanner.mempool_transfers({address})
        assert (pooled.tx_hash, pooled.from_address, pooled.from_addresses) == (txid, first, (first, second))
        litecoin.mine()
        height = litecoin.head()
        [mined] = (await scanner.scan(height, height, {address})).transfers
        assert (mined.from_address, mined.from_addresses) == (first, (first, second))
        await scanner.close()

    run(scenario())


def test_a_replaced_transaction_has_vanished_and_a_waiting_or_mined_one_has_not(
        litecoin: Litecoin, account: int) -> None:
    address = litecoin.keys.deposit_address(MNEMONIC, account, 0)

    async def scenario() -> None:
        scanner = litecoin.scanner()
        replaced = litecoin.pay(address, Decimal("0.3"), replaceable=True)
        waiting = litecoin.pay(address, Decimal("0.2"))
        assert await scanner.vanished([replaced, waiting]) == set()
        litecoin.replace(replaced, str(litecoin.wallet("getnewaddress", "", "bech32")))
        assert await scanner.vanished([replaced, waiting]) == {replaced}
        litecoin.mine()
        assert await scanner.vanished([replaced, waiting]) == {replaced}
        await scanner.close()

    run(scenario())
