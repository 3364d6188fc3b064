"""A UTXO network's own parameters, read from its networks-file entry (`Network.params`) and checked once.

    hrp             bech32 prefix: "rltc" (Litecoin regtest), "tltc", "ltc", "bcrt", "tb", "bc"      (required)
    coin_type       BIP-44 coin type of its key paths: 1 on every test network (default there), 2 LTC, 0 BTC
    chain           what the node's getblockchaininfo must call its chain ("regtest", "test", "main"); by default
                    the one the hrp belongs to
    uri_scheme      BIP-21 scheme of the checkout's QR code; by default from the native coin ("litecoin")
    fee_rate_floor  sat/vB: the lowest fee rate a spend is priced at, and the rate when the node has no estimate
                    (regtest never has one); default 1, the nodes' minimum relay fee
    fee_target      blocks: estimatesmartfee's confirmation target (default 3)
    dust_relay_fee  sat per 1000 vB: the node's -dustrelayfee; by default its software's (Litecoin Core 30000,
                    Bitcoin Core 3000)
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from server.catalogue.catalogue import CatalogueError, Network
from server.rails.utxo.addresses import BASE58
from server.rails.utxo.spend import DUST_RELAY_FEE, LITECOIN_DUST_RELAY_FEE

CHAIN_OF_HRP = {"rltc": "regtest", "bcrt": "regtest", "tltc": "test", "tb": "test", "ltc": "main", "bc": "main"}
URI_SCHEMES = {"LTC": "litecoin", "BTC": "bitcoin"}
_LITECOIN_HRPS = frozenset({"ltc", "tltc", "rltc"})
DEFAULT_FEE_RATE_FLOOR = Decimal(1)
DEFAULT_FEE_TARGET = 3


@dataclass(frozen=True)
class UtxoParams:
    hrp: str
    coin_type: int
    chain: str
    uri_scheme: str
    fee_rate_floor: Decimal
    fee_target: int
    dust_relay_fee: int

    @classmethod
    def of(cls, network: Network) -> UtxoParams:
        """The parameters of `network`; CatalogueError naming the network and the key when one is unusable."""
        p = network.params

        def bad(key: str, why: str) -> CatalogueError:
            return CatalogueError(f"network {network.id}: {key} {why}")

        hrp = p.get("hrp")
        if not isinstance(hrp, str) or not hrp or hrp != hrp.lower() or not hrp.isascii() or "1" in hrp:
            raise bad("hrp", "must be the lower-case bech32 prefix of its addresses (e.g. rltc)")
        if hrp not in BASE58:
            raise bad("hrp", f"{hrp!r} is not a known network (server/rails/utxo/addresses.py BASE58)")
        coin_type = p.get("coin_type", None if network.is_mainnet else 1)
        if not isinstance(coin_type, int) or isinstance(coin_type, bool) or not 0 <= coin_type < 2**31:
            raise bad("coin_type", "must be the BIP-44 coin type (1 on test networks), an integer below 2^31")
        chain = p.get("chain", CHAIN_OF_HRP.get(hrp, ""))
        if not isinstance(chain, str) or not chain:
            raise bad("chain", "must name the node's chain (regtest, test, main)")
        if (chain == "main") != network.is_mainnet:
            raise bad("chain", f"{chain!r} does not match the network id (test networks end with -TEST)")
        native = next((a.coin for a in network.assets if not a.contract_address), "")
        scheme = p.get("uri_scheme", URI_SCHEMES.get(native, ""))
        if not isinstance(scheme, str) or not scheme:
            raise bad("uri_scheme", "must be the BIP-21 scheme of its payment URIs (e.g. litecoin)")
        try:
            floor = Decimal(str(p.get("fee_rate_floor", DEFAULT_FEE_RATE_FLOOR)))
        except InvalidOperation:
            raise bad("fee_rate_floor", "must be a number of sat/vB") from None
        if not floor.is_finite() or floor <= 0:
            raise bad("fee_rate_floor", "must be a positive number of sat/vB")
        target = p.get("fee_target", DEFAULT_FEE_TARGET)
        if not isinstance(target, int) or isinstance(target, bool) or not 1 <= target <= 1008:
            raise bad("fee_target", "must be a number of blocks from 1 to 1008")
        dust = p.get("dust_relay_fee", LITECOIN_DUST_RELAY_FEE if hrp in _LITECOIN_HRPS else DUST_RELAY_FEE)
        if not isinstance(dust, int) or isinstance(dust, bool) or dust < 0:
            raise bad("dust_relay_fee", "must be a whole number of sat per 1000 vB")
        return cls(hrp=hrp, coin_type=coin_type, chain=chain, uri_scheme=scheme, fee_rate_floor=floor,
                   fee_target=target, dust_relay_fee=dust)
