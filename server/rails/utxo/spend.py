"""Spending P2WPKH outputs: coin selection, fees by virtual size, and the signed transaction. Pure: no node, no I/O.

A spend is planned (`select` for an amount, `sweep` for everything given), then signed (`build_and_sign`): the plan
fixes the inputs, outputs and fee, so the signature only commits to what was priced. Signing is deterministic
(RFC 6979 nonces, embit over libsecp256k1), so signing the same plan again gives the same txid.

Fees: `fee = ceil(rate * vsize)`, the vsize estimated before signing with a 72-byte signature per input (embit
grinds signatures to at most 71 bytes with the sighash byte), so the rate paid is never below the rate asked.
Every input signals BIP-125 replaceability (sequence 0xfffffffd): a stuck spend can be replaced with a higher fee.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from embit import bech32
from embit.ec import PrivateKey
from embit.hashes import hash160
from embit.script import Script, p2pkh, witness_p2wpkh
from embit.transaction import SIGHASH, Transaction, TransactionInput, TransactionOutput

from server.rails.base import PayoutRefused

SEQUENCE_RBF = 0xFFFFFFFD  # below 0xfffffffe: replaceable (BIP-125), and no relative lock-time meaning
DUST_RELAY_FEE = 3000  # sat per 1000 vB: Bitcoin Core's -dustrelayfee default
LITECOIN_DUST_RELAY_FEE = 30000  # Litecoin Core's, ten times Bitcoin's (seen: litecoind 0.21 refuses 2939 as dust)
DUST_P2WPKH = 294  # the dust limit of a P2WPKH output at Bitcoin's rate: (31 + 67) * 3; 2940 on Litecoin
MAX_STANDARD_WEIGHT = 400_000  # a larger transaction is not relayed

# Weight units (vsize = weight / 4). A P2WPKH input: outpoint 36 + empty scriptSig 1 + sequence 4 bytes, times 4; its
# witness: item count 1, signature 1 + 72, public key 1 + 33.
_INPUT_WEIGHT = (36 + 1 + 4) * 4 + (1 + 1 + 72 + 1 + 33)
_SEGWIT_MARKER_WEIGHT = 2  # marker and flag bytes, witness data


@dataclass(frozen=True)
class Utxo:
    """An unspent output: where it is (txid, vout), what it holds (value in the smallest unit), the address it pays
    (stored form) and the height of its block (0 when unconfirmed)."""

    txid: str
    vout: int
    value: int
    address: str
    height: int = 0


@dataclass(frozen=True)
class Output:
    script: bytes  # scriptPubKey (addresses.script_of)
    value: int


@dataclass(frozen=True)
class Plan:
    """A spend priced and ready to sign: `outputs[0]` pays the destination `value`; `outputs[1]`, when there, is the
    change. `fee` is what the inputs leave to the miner (a change below dust is left to it too)."""

    inputs: tuple[Utxo, ...]
    outputs: tuple[Output, ...]
    value: int
    fee: int
    change: int
    vsize: int  # estimated, ≥ the signed transaction's


@dataclass(frozen=True)
class Signed:
    raw: str  # the serialized transaction, hex
    txid: str
    vsize: int


def _varint_size(n: int) -> int:
    return 1 if n < 0xFD else 3 if n <= 0xFFFF else 5 if n <= 0xFFFFFFFF else 9


def output_size(script: bytes) -> int:
    """Bytes of one output: value 8, script length, script."""
    return 8 + _varint_size(len(script)) + len(script)


def estimate_weight(n_inputs: int, output_scripts: Sequence[bytes]) -> int:
    """The weight of a transaction spending `n_inputs` P2WPKH outputs to these scripts, signatures included."""
    base = 4 + _varint_size(n_inputs) + _varint_size(len(output_scripts)) + sum(map(output_size, output_scripts)) + 4
    return base * 4 + _SEGWIT_MARKER_WEIGHT + n_inputs * _INPUT_WEIGHT


def estimate_vsize(n_inputs: int, output_scripts: Sequence[bytes]) -> int:
    return math.ceil(estimate_weight(n_inputs, output_scripts) / 4)


def p2wpkh_vsize(n_inputs: int, n_outputs: int) -> int:
    """The vsize of n P2WPKH inputs to m P2WPKH outputs (e.g. 1 in, 2 out: 141 vB)."""
    return estimate_vsize(n_inputs, [bytes(22)] * n_outputs)


def fee_for(rate: Decimal | int, vsize: int) -> int:
    """The fee at `rate` sat/vB for `vsize`, rounded up to a whole unit."""
    return math.ceil(Decimal(rate) * vsize)


def dust_threshold(script: bytes, dust_relay_fee: int = DUST_RELAY_FEE) -> int:
    """The smallest value an output to `script` may carry and be relayed: what it would cost to spend it at the dust
    relay fee (Bitcoin Core's GetDustThreshold: the output plus a 67-vB segwit or 148-byte legacy input)."""
    witness = len(script) >= 4 and (script[0] == 0 or 0x51 <= script[0] <= 0x60) and script[1] + 2 == len(script)
    spend = 32 + 4 + 1 + 107 // 4 + 4 if witness else 32 + 4 + 1 + 107 + 4
    return (output_size(script) + spend) * dust_relay_fee // 1000


def _check_rate(rate: Decimal | int) -> None:
    if not Decimal(rate).is_finite() or Decimal(rate) <= 0:
        raise ValueError(f"fee rate {rate!r} is not a positive number of sat/vB")


def _settle(inputs: tuple[Utxo, ...], amount: int, destination: bytes, change: bytes, rate: Decimal | int,
            fee_from_amount: bool, dust_relay_fee: int) -> Plan | None:
    """The plan spending exactly `inputs`, or None when they do not cover it. A change output is made when it is
    worth at least its dust limit; a smaller remainder goes to the fee (an output that small would not relay)."""
    total = sum(u.value for u in inputs)
    vsize_change = estimate_vsize(len(inputs), [destination, change])
    vsize_alone = estimate_vsize(len(inputs), [destination])
    fee_change, fee_alone = fee_for(rate, vsize_change), fee_for(rate, vsize_alone)
    change_dust, destination_dust = dust_threshold(change, dust_relay_fee), dust_threshold(destination, dust_relay_fee)
    if fee_from_amount:
        if total < amount:
            return None
        rest = total - amount
        if rest >= change_dust:
            # Never without the change: that would hand the remainder to the miner.
            value = amount - fee_change
            if value < destination_dust:
                return None
            return Plan(inputs, (Output(destination, value), Output(change, rest)), value, fee_change, rest,
                        vsize_change)
        value = amount - fee_alone
        if value < destination_dust:
            return None
        return Plan(inputs, (Output(destination, value),), value, total - value, 0, vsize_alone)
    rest = total - amount - fee_change
    if rest >= change_dust:
        return Plan(inputs, (Output(destination, amount), Output(change, rest)), amount, fee_change, rest,
                    vsize_change)
    if total - amount >= fee_alone:
        return Plan(inputs, (Output(destination, amount),), amount, total - amount, 0, vsize_alone)
    return None


def select(utxos: Sequence[Utxo], amount: int, destination: bytes, change: bytes, rate: Decimal | int, *,
           fee_from_amount: bool = False, dust_relay_fee: int = DUST_RELAY_FEE) -> Plan:
    """Inputs among `utxos` to pay `amount` to `destination` at `rate` sat/vB, change to `change`.

    Without `fee_from_amount` the destination gets `amount` and the inputs also pay the fee; with it (a refund's
    `net_amount = amount - network_fee`, DESIGN §5) the inputs pay `amount` and the destination gets amount - fee.
    The smallest single output that covers it is taken (one input: the cheapest spend, and large outputs stay for
    large payouts); otherwise the largest first until they cover it (fewest inputs). Raises
    PayoutRefused("insufficient_funds"), PayoutRefused("amount_below_network_fee") when the fee would leave the
    destination less than an output may carry, PayoutRefused("amount_below_dust") for such an amount itself."""
    _check_rate(rate)
    if amount <= 0:
        raise ValueError(f"amount {amount} is not positive")
    destination_dust = dust_threshold(destination, dust_relay_fee)
    if not fee_from_amount and amount < destination_dust:
        raise PayoutRefused("amount_below_dust")
    if fee_from_amount and amount - fee_for(rate, estimate_vsize(1, [destination])) < destination_dust:
        raise PayoutRefused("amount_below_network_fee")
    ordered = sorted(utxos, key=lambda u: (u.value, u.txid, u.vout))
    for utxo in ordered:
        plan = _settle((utxo,), amount, destination, change, rate, fee_from_amount, dust_relay_fee)
        if plan is not None:
            return plan
    chosen: list[Utxo] = []
    for utxo in reversed(ordered):
        chosen.append(utxo)
        if estimate_weight(len(chosen), [destination, change]) > MAX_STANDARD_WEIGHT:
            break
        plan = _settle(tuple(chosen), amount, destination, change, rate, fee_from_amount, dust_relay_fee)
        if plan is not None:
            return plan
    if fee_from_amount and sum(u.value for u in chosen) >= amount:
        raise PayoutRefused("amount_below_network_fee")  # the inputs it takes cost more than the amount leaves
    raise PayoutRefused("insufficient_funds")


def sweep(utxos: Sequence[Utxo], destination: bytes, rate: Decimal | int, *,
          dust_relay_fee: int = DUST_RELAY_FEE) -> Plan:
    """Every one of `utxos` to `destination`, the fee out of the total, no change (a sweep consolidating deposits).
    Raises PayoutRefused("insufficient_funds") for no inputs, PayoutRefused("amount_below_network_fee") when the
    fee leaves less than an output may carry, ValueError when the inputs do not fit one standard transaction."""
    _check_rate(rate)
    if not utxos:
        raise PayoutRefused("insufficient_funds")
    if estimate_weight(len(utxos), [destination]) > MAX_STANDARD_WEIGHT:
        raise ValueError(f"{len(utxos)} inputs do not fit one standard transaction: sweep them in parts")
    vsize = estimate_vsize(len(utxos), [destination])
    fee = fee_for(rate, vsize)
    value = sum(u.value for u in utxos) - fee
    if value < dust_threshold(destination, dust_relay_fee):
        raise PayoutRefused("amount_below_network_fee")
    return Plan(tuple(utxos), (Output(destination, value),), value, fee, 0, vsize)


def share_fee(fee: int, inputs: Sequence[int]) -> tuple[int, ...]:
    """`fee` shared among parts by the number of inputs each brings (inputs are what a consolidation's size grows
    with), in whole units adding up exactly: the remainder goes to the first parts, one unit each."""
    total = sum(inputs)
    if total <= 0 or any(n <= 0 for n in inputs):
        raise ValueError("every part brings at least one input")
    shares = [fee * n // total for n in inputs]
    for i in range(fee - sum(shares)):
        shares[i] += 1
    return tuple(shares)


def _witness_program(address: str) -> bytes | None:
    hrp = address[: address.rfind("1")]
    version, program = bech32.decode(hrp, address)
    return bytes(program) if version == 0 and program is not None and len(program) == 20 else None


def build_and_sign(inputs: Sequence[tuple[Utxo, bytes]], outputs: Sequence[Output], *,
                   locktime: int = 0, sequence: int = SEQUENCE_RBF) -> Signed:
    """The transaction spending each P2WPKH `Utxo` with its 32-byte private key to `outputs`, signed SIGHASH_ALL
    (BIP-143). Refuses a key that is not the output's, and outputs worth more than the inputs."""
    if not inputs or not outputs:
        raise ValueError("a transaction needs at least one input and one output")
    if any(o.value < 0 for o in outputs) or sum(o.value for o in outputs) > sum(u.value for u, _ in inputs):
        raise ValueError("the outputs are worth more than the inputs")
    tx = Transaction(version=2, vin=[TransactionInput(bytes.fromhex(u.txid), u.vout, sequence=sequence)
                                     for u, _ in inputs],
                     vout=[TransactionOutput(o.value, Script(o.script)) for o in outputs], locktime=locktime)
    for i, (utxo, key) in enumerate(inputs):
        private = PrivateKey(key)
        public = private.get_public_key()
        if _witness_program(utxo.address) != hash160(public.sec()):
            raise ValueError(f"input {i} ({utxo.txid}:{utxo.vout}): the key is not the one of {utxo.address}")
        # BIP-143: a P2WPKH input signs the P2PKH script of its key hash, and the value it spends.
        digest = tx.sighash_segwit(i, p2pkh(public), utxo.value, SIGHASH.ALL)
        tx.vin[i].witness = witness_p2wpkh(private.sign(digest), public, SIGHASH.ALL)
    raw = tx.serialize()
    witness = sum(len(vin.witness.serialize()) for vin in tx.vin) + _SEGWIT_MARKER_WEIGHT
    weight = (len(raw) - witness) * 4 + witness
    return Signed(raw=raw.hex(), txid=tx.txid().hex(), vsize=math.ceil(weight / 4))
