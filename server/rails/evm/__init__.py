"""The EVM rail: any Ethereum-compatible chain over JSON-RPC (web3.py).

* `client.py`   — the JSON-RPC calls the watcher makes, batched: head, blocks with transactions, receipts, and
                  `eth_getLogs` for ERC-20 `Transfer` logs filtered by recipient;
* `scanner.py`  — turns a range of blocks into the native and token transfers to a set of addresses;
* `devchain.py` — `paygate devchain`: a local Anvil node with test USDT and USDC (`contracts/TestToken.sol`).
"""
