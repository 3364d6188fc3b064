"""The EVM rail: any Ethereum-compatible chain over JSON-RPC (web3.py), in both directions.

* `rail.py`         — `EvmRail`: every capability of `server/rails/base.py` for one network of the catalogue;
* `payouts.py`      — a payout quoted, signed and stored before its broadcast, then followed to its end (nonces
                      reserved in the database, fee-bumped replacement, cancel, gap fill);
* `transactions.py` — EIP-1559 transfers built, signed, decoded and re-priced (pure), and address validation;
* `node.py`         — the JSON-RPC calls payouts make (balances, nonces, fees, gas, send, receipts);
* `probe.py`        — whether the node answers (`eth_chainId`): what makes the network's assets payable;
* `models.py`       — the nonce counter and every transaction signed from a source address;
* `client.py`       — the JSON-RPC calls the watcher makes, batched: head, blocks with transactions, receipts, and
                      `eth_getLogs` for ERC-20 `Transfer` logs filtered by recipient;
* `scanner.py`      — turns a range of blocks into the native and token transfers to a set of addresses;
* `devchain.py`     — `paygate devchain`: a local Anvil node with test USDT and USDC (`contracts/TestToken.sol`).
"""
