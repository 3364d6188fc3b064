"""The UTXO rail: Bitcoin-family chains (Litecoin, Bitcoin) through a Bitcoin Core-style node's JSON-RPC (DESIGN §18).

* `rail.py`      — `UtxoRail`: receiving, addresses and balances of one network of the catalogue;
* `family.py`    — `FAMILY`, what the registry knows of the family (chain family "utxo");
* `params.py`    — the network's own parameters from the networks file (hrp, coin_type, chain, fee floor, dust);
* `keys.py`      — BIP-84 P2WPKH deposit, treasury and change addresses and their keys (bip-utils, embit);
* `addresses.py` — addresses (bech32 lower-case, base58 exactly) and txids in their stored form; scripts; BIP-21;
* `node.py`      — the async (and blocking) JSON-RPC client: RpcError for a refusal, ChainUnavailable for no answer;
* `scanner.py`   — the outputs blocks and the mempool pay to watched addresses; a transaction's status;
* `balances.py`  — holdings and unspent outputs from the UTXO set (`scantxoutset`);
* `spend.py`     — coin selection, fees by virtual size, signed P2WPKH transactions (pure);
* `units.py`     — exact coin ↔ base-unit amounts;
* `probe.py`     — whether the node answers (`getblockchaininfo`);
* `devchain.py`  — a local `litecoind -regtest` with a funded wallet, written into the networks file as LTC-TEST.
"""
