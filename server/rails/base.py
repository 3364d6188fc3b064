"""What paygate needs from a rail, split into small capabilities; a rail implements the ones its network has.

    Rail                 every rail: its name (a network id or a provider id) and its family ("evm", "card", …)
    ├── Receiver         finds incoming payments: `scanner()` → ChainScanner (head, block hashes, scan)
    ├── AddressBook      validates a destination address and gives its stored form
    ├── Balances         what an address holds of an asset
    └── AddressPayouts   a payout of amount X of asset A from the key of address K to address D:
                         quote (network fee, what arrives) → sign and record, in the caller's transaction, before
                         any broadcast → broadcast → follow to its end (receipts, sequence/nonce reconciliation,
                         fee-bumped replacement, gap fill), telling the payout's owner (`PayoutOwner`) the outcome

An account chain (EVM) has all four. A card provider has no addresses or nonces: it implements `Rail` and a
capability of its own (a refund of a provider charge) beside these, not a fat interface with stubs.

The owner of payouts (refunds today; sweeps and treasury payouts next) keeps its own rows and state machine and speaks
only to these protocols: it never builds, prices or signs a transaction itself.

A chain family also says how the wallet's one BIP-39 seed becomes its addresses and keys (`KeyScheme`), and is
registered as one `Family` (server/rails/registry.py).

Errors: `ChainUnavailable` (the network did not answer: try again later, decide nothing) and `PayoutRefused`
(the payout cannot be made now: `reason` is the failure_reason the owner records).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from sqlmodel.ext.asyncio.session import AsyncSession

from server.catalogue.catalogue import Asset, Catalogue, Network

if TYPE_CHECKING:
    from server.config import Settings
    from server.db import Database

# ---------------------------------------------------------------------------------------------------- receiving


@dataclass(frozen=True)
class SeenTransfer:
    """A transfer found on chain to a watched address. `amount_base` is in the asset's smallest unit, exact."""

    tx_hash: str
    log_index: int  # -1 for a native transfer
    block_number: int
    block_hash: str
    from_address: str
    to_address: str
    asset_id: str
    amount_base: int
    decimals: int
    # Every address the transaction spent from, in input order and each once, where a transaction has many senders
    # (UTXO: each input's address, those the rail could not name left out; `from_address` is the first input's).
    # Empty where the rail has one sender (EVM): screening then reads `from_address` alone.
    from_addresses: tuple[str, ...] = ()


@dataclass(frozen=True)
class ScanResult:
    """The canonical hash of every block in [start, end], its first block's parent, and the transfers found."""

    start: int
    end: int
    parent_hash: str  # of block `start`; links this range to the previous one
    hashes: dict[int, str] = field(default_factory=dict)
    transfers: list[SeenTransfer] = field(default_factory=list)
    # Each block's own timestamp (Unix seconds), where the rail tells it; a transfer in a block without one is
    # recorded without a block time and counts from when it was first seen (server/payment_intents/totals.py).
    times: dict[int, int] = field(default_factory=dict)


class ChainUnavailable(Exception):
    """The node did not answer, or answered something inconsistent (e.g. a re-organisation during the scan)."""


class ChainScanner(Protocol):
    network: str

    async def check(self) -> None:
        """Raises ChainUnavailable when the node is unreachable or serves another chain than the catalogue's."""

    async def head(self) -> int: ...

    async def close(self) -> None:
        """Closes the connections to the node."""

    async def block_hash(self, number: int) -> str | None:
        """The canonical hash at `number`, None beyond the head."""

    async def scan(self, start: int, end: int, recipients: set[str]) -> ScanResult: ...


@runtime_checkable
class TransferLookup(Protocol):
    async def transfers_of(self, tx_hash: str, recipients: set[str]) -> tuple[list[SeenTransfer], int]:
        """The transfers of one mined, successful transaction to `recipients` (native and tokens), and the head's
        block number; ([], head) when it is not mined or failed."""
        ...


@runtime_checkable
class MempoolReader(Protocol):
    """A scanner that also sees the transactions waiting in its node's mempool (UTXO; an EVM scanner has none). The
    watcher lists their transfers before they are mined, unmined (block_number 0, block_hash ""), and ends those
    whose transaction leaves the mempool without being mined."""

    async def mempool_transfers(self, recipients: set[str]) -> list[SeenTransfer]:
        """The transfers to `recipients` of the transactions waiting in the mempool now, block_number 0 and
        block_hash ""."""
        ...

    async def vanished(self, tx_hashes: Collection[str]) -> set[str]:
        """Those of `tx_hashes` (seen waiting earlier) that are neither waiting in the mempool nor mined in the active
        chain now: replaced (BIP-125), double-spent or evicted. A mined one is not: the block scan records it."""
        ...


# ---------------------------------------------------------------------------------------------------- capabilities


@runtime_checkable
class Rail(Protocol):
    name: str  # the network id (ETH-TEST, POLYGON, …) or the provider id
    family: str  # "evm", "card", …


@runtime_checkable
class Receiver(Protocol):
    def scanner(self) -> ChainScanner:
        """A scanner with its own connection, for the chain watcher (it closes it)."""
        ...


class InvalidAddress(ValueError):
    """Not an address on this rail's network."""


class InvalidTxHash(ValueError):
    """Not a transaction hash of this rail's network."""


@runtime_checkable
class AddressBook(Protocol):
    """The only place addresses and transaction hashes are validated and put in the form rows keep and compare:
    a family's forms differ (EVM hex is case-insensitive, bech32 is stored lower-case, base58 is case-sensitive), so
    no caller lower-cases or pattern-matches them itself."""

    def normalize_address(self, value: str) -> str:
        """The address as stored (EVM: lower-case 0x…; a mixed-case one must carry a valid checksum).
        Raises InvalidAddress."""
        ...

    def normalize_tx_hash(self, value: str) -> str:
        """The transaction hash as stored (EVM: lower-case 0x and 64 hex digits). Raises InvalidTxHash."""
        ...


@runtime_checkable
class Balances(Protocol):
    async def balance(self, asset: Asset, address: str) -> int:
        """What `address` holds of `asset`, in its smallest units. Network I/O: outside any transaction."""
        ...

    async def balances(self, wanted: Sequence[tuple[Asset, str]]) -> list[int]:
        """What each (asset, address) holds, in order, in as few requests as the node allows (reconciliation)."""
        ...


@runtime_checkable
class PaymentRequests(Protocol):
    """How a wallet is asked to pay an address: the URI the hosted page's QR code and "open in wallet" link carry
    (EIP-681 on EVM networks, BIP-21 on UTXO networks). Only the rail knows its network's form, so neither the
    facade nor the page builds one; a rail without this capability (a card provider) offers no URI."""

    def payment_uri(self, address: str, amount: Decimal | None = None, asset: Asset | None = None) -> str:
        """The URI that pays `amount` (whole units of `asset`, as a quote states it; the network's native coin when
        `asset` is None) to `address` (its stored form); without an amount, one that names only the recipient.
        Raises ValueError for an amount the URI cannot carry exactly, or an asset of another network."""
        ...


# ---------------------------------------------------------------------------------------------------- payouts


class PayoutRefused(Exception):
    """The payout cannot be made now; `reason` is what its owner records (`insufficient_funds`,
    `amount_below_network_fee`, …)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Payout:
    """A payout of `amount_base` (smallest units) of `asset` from `source` (an address whose key the owner holds) to
    `destination`. With `fee_from_amount`, a network fee paid in the same asset comes out of the amount (DESIGN §5:
    a refund's `net_amount = amount - network_fee`); a fee paid in another asset (gas for a token) never can."""

    asset: Asset
    source: str
    destination: str
    amount_base: int
    fee_from_amount: bool = True
    # The received outputs (tx hash, output index: a transfer's `log_index`) the payout may spend, where a rail spends
    # coins rather than a balance: a sweep names its deposit address's confirmed, AML-approved transfers, so that a
    # frozen or pending coin at the same address is never moved. Empty: any of the source's. An account rail (EVM)
    # pays from the balance and ignores it.
    coins: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class PayoutQuote:
    """What a payout would be if signed now. `detail` is the rail's own (EVM: the unsigned transaction, its fees and
    the node's next nonce for the source); owners pass the quote back to `sign_payout` and never look inside."""

    payout: Payout
    value_base: int  # what reaches the destination
    fee_base: int  # the network fee taken out of the amount, in the asset's smallest units (0 when paid apart)
    detail: object = None
    gas_base: int = 0  # the most the transaction's gas can cost, in the native coin's smallest units


@dataclass(frozen=True)
class SignedPayout:
    """A payout signed and stored by the rail in the caller's transaction; broadcast only after that commits."""

    network: str
    source: str
    sequence: int  # EVM: the nonce
    tx_hash: str
    raw: str
    value_base: int


@dataclass(frozen=True)
class PendingPayout:
    """A payout its owner recorded as sent and not yet decided (the owner's row, as the rail needs it)."""

    id: str  # the owner's id for it (a refund transaction's rtx_…)
    network: str
    asset_id: str
    source: str
    sequence: int
    # Its first signed transaction as the owner stored it: rows older than the rail's own record of what it signed.
    tx_hash: str
    raw: str
    value_base: int
    created_at: int


class Outcome(StrEnum):
    PAID = "paid"  # one of our transactions for it is mined and confirmed: `tx_hash`, `fee_paid` tell which and what
    FAILED = "failed"  # it can never pay: `reason` (our cancel was mined: insufficient_funds; reverted)
    LOST = "lost"  # its sequence went to a transaction we did not sign: quote and sign it again, fresh sequence


@dataclass(frozen=True)
class PayoutResult:
    payout_id: str
    outcome: Outcome
    reason: str = ""  # FAILED
    tx_hash: str = ""  # PAID: the transaction that was mined (the first one, or a fee-bumped replacement)
    raw: str = ""
    value_base: int = 0  # PAID: what reached the destination
    # PAID, and FAILED by a mined cancel or revert: the network fee the receipt shows, in the network's fee asset's
    # smallest units (the source paid it either way)
    fee_paid: int = 0
    # PAID: the part of `fee_paid` that came out of the amount, in the asset's smallest units; None when the fee was
    # paid apart (in another asset, e.g. gas for a token)
    fee_base: int | None = None


class PayoutOwner(Protocol):
    """What the rail asks of whoever owns payouts (refunds, sweeps, treasury payouts) while following them."""

    async def key_of(self, network: str, source: str) -> bytes | None:
        """The private key of `source` on `network`, to sign a replacement, a cancel or a gap filler; None if not
        ours."""
        ...

    async def waiting(self, network: str, source: str) -> set[int]:
        """The sequences of the owner's undecided payouts from `source`: gaps are filled only around them."""
        ...

    async def undecided(self, session: AsyncSession, payout_id: str) -> bool:
        """In the rail's transaction that records a replacement: locks the owner's row of the payout and says whether
        it is still undecided (a payout decided meanwhile by another sender gets no replacement)."""
        ...

    async def decided(self, result: PayoutResult) -> None:
        """Records the outcome (its own transaction: the rail calls outside any)."""
        ...


@runtime_checkable
class AddressPayouts(Protocol):
    # Whether a payment's sender address is its payer's own, so that a refund may go back to it when no
    # refund_address is given: an account's is (EVM); a UTXO input's address may be an exchange's hot wallet or a
    # wallet's change address, so a refund there must name where it goes.
    pays_back_senders: bool

    async def quote_payout(self, payout: Payout) -> PayoutQuote:
        """Fees, what arrives, and whether the source can pay it. Network I/O; raises PayoutRefused."""
        ...

    async def sign_payout(self, session: AsyncSession, quote: PayoutQuote, key: bytes, payout_id: str,
                          record: Callable[[SignedPayout], None]) -> SignedPayout:
        """In the caller's transaction, with no network I/O: reserves the source's next sequence, signs, lets the owner
        add its row for the payout (`record`, id `payout_id`), then stores the signed bytes and hash under that id.
        Broadcast only after the transaction commits."""
        ...

    async def broadcast(self, signed: SignedPayout) -> None:
        """Sends it after the commit. A refusal is only logged: `follow` reads the chain and decides."""
        ...

    async def signed_here(self, session: AsyncSession, tx_hashes: Sequence[str]) -> bool:
        """Whether paygate itself signed one of these transactions on this network (a sweep's gas top-up seen
        arriving at a deposit address is the merchant's own move, never a payment)."""
        ...

    async def follow(self, source: str, pending: list[PendingPayout], owner: PayoutOwner) -> None:
        """One pass over a source's undecided payouts: decides the mined ones (through `owner.decided`), sends
        again, replaces or cancels the stuck ones, and fills sequence gaps. Never fails a payout whose sequence is
        unused on chain."""
        ...


@dataclass(frozen=True)
class ConsolidationQuote:
    """Several payouts of one asset from different sources to one destination, priced as one transaction: part `i`
    delivers `values_base[i]` and bears `fees_base[i]` of the network fee (out of its amount); `detail` is the
    rail's own."""

    parts: tuple[Payout, ...]
    values_base: tuple[int, ...]
    fees_base: tuple[int, ...]
    detail: object = None


@runtime_checkable
class ConsolidatingPayouts(AddressPayouts, Protocol):
    """A rail that pays several sources' payouts to one destination in a single transaction (UTXO: the coins of many
    deposit addresses into the treasury, one output, one fee): sweeps consolidate through it. Each part stays a payout
    of its own for its owner (its own id, sequence and outcome); they share one transaction and are decided alike."""

    async def quote_consolidation(self, parts: Sequence[Payout]) -> ConsolidationQuote:
        """Network I/O; raises PayoutRefused when the parts cannot be paid together now (the owner pays them one by
        one instead)."""
        ...

    async def sign_consolidation(self, session: AsyncSession, quote: ConsolidationQuote, keys: Sequence[bytes],
                                 payout_ids: Sequence[str],
                                 record: Callable[[int, SignedPayout], None]) -> list[SignedPayout]:
        """As `sign_payout`, for every part at once (`keys[i]` signs part i's inputs; `record(i, signed)` adds the
        owner's row of part i). Broadcast one of them (they carry the same transaction) after the commit."""
        ...


# ---------------------------------------------------------------------------------------------------- keys and families


@runtime_checkable
class KeyScheme(Protocol):
    """How a chain family derives a merchant's addresses and their private keys from the wallet's BIP-39 seed
    (DESIGN §3): one account number per merchant and mode, deposit addresses by index, one treasury address. Keys are
    derived when needed and never stored. Addresses come in their stored form (the form rows keep and compare)."""

    def deposit_address(self, mnemonic: str, account: int, index: int) -> str: ...

    def deposit_key(self, mnemonic: str, account: int, index: int) -> bytes: ...

    def treasury_address(self, mnemonic: str, account: int) -> str: ...

    def treasury_key(self, mnemonic: str, account: int) -> bytes: ...

    def display_address(self, stored: str) -> str:
        """The address as clients are shown it (EVM: EIP-55 mixed case)."""
        ...


class InvalidSignature(ValueError):
    """Not a signature of this family's shape (the message says what is wrong with it)."""


@runtime_checkable
class MessageSigning(Protocol):
    """A family whose wallets sign text with an address's key: how a merchant proves control of a payout address
    (DESIGN §16). A family without it proves control by the micro-deposit and an approver."""

    def message_signer(self, message: str, signature: str) -> str:
        """The address (stored form) whose key signed `message` the way the family's wallets sign text (EVM:
        EIP-191 `personal_sign`). Raises InvalidSignature for a malformed signature; a well-formed signature of
        another message yields another address."""
        ...


class DevChainFailed(Exception):
    """A local test chain did not start or died; the message names its family and says why."""


class DevChain(Protocol):
    """A family's local test chain, started by `paygate devchain` with its network written into the networks file."""

    @property
    def info(self) -> dict[str, Any]:
        """Its part of the command's JSON line (the RPC URL, funded accounts or wallet, …)."""
        ...

    def alive(self) -> bool: ...

    def stop(self) -> None: ...


@dataclass(frozen=True)
class Family:
    """A chain family as the registry knows it: a network's rail, the watcher's scanner of it (its own
    connection), the probe that says whether its node answers now (server/catalogue/health.py), and its keys."""

    rail: Callable[[Network, Catalogue, Database, Settings], Rail]
    scanner: Callable[[Network], ChainScanner]
    probe: Callable[[Network], Awaitable[bool]]
    keys: KeyScheme
    # A family whose addresses differ by network (a UTXO network's bech32 prefix and BIP-44 coin type, from its
    # `params`) gives each network's scheme here; `keys` is then its default network's.
    keys_for: Callable[[Network], KeyScheme] | None = None
    # `paygate devchain`: start(port, networks file, block time or None), for a family with a local test chain.
    devchain: Callable[[int, Path, float | None], DevChain] | None = None


# ---------------------------------------------------------------------------------------------------- payout outputs


@runtime_checkable
class PayoutOutputs(Protocol):
    """What a rail's payout outputs must respect, for an owner that chooses an amount itself (a payout address's
    micro-deposit) or tells what arrives before sending (a treasury payout's `payment_net_amount`). A rail without it
    (EVM) sends any positive amount, and a treasury payout's network fee is paid apart by the treasury."""

    # Whether a treasury payout of the network's native coin pays its network fee out of its amount: the destination
    # receives amount - network_fee and the merchant's balance moves by the amount (UTXO: the fee is what the spent
    # outputs leave over, in the coin paid out).
    native_fee_from_amount: bool

    def smallest_output(self, asset: Asset, destination: str) -> int:
        """The least an output of `asset` to `destination` (stored form) may carry, in its smallest units (UTXO: the
        dust threshold of the destination's script, below which the node relays no transaction)."""
        ...
