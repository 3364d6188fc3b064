"""Dev-chain helper for the SDK harness (the README's "Pay a demo intent on the dev chain" done from a script).

Run with paygate's venv python; DEVCHAIN_JSON names the file `paygate devchain` printed.

  chain.py pay-token COIN TO AMOUNT      transfer AMOUNT (decimal) of COIN (USDT/USDC) from accounts[0]; prints tx hash
  chain.py send-eth TO AMOUNT            send AMOUNT ETH (decimal) from accounts[0]; prints tx hash
  chain.py block                         prints the current block number
  chain.py find-eth TO FROM_BLOCK        prints the ETH value (decimal) of the first plain transfer to TO
                                         since FROM_BLOCK, or nothing
  chain.py sign PRIVATE_KEY MESSAGE      EIP-191 personal_sign of MESSAGE; prints 0x signature
"""

import json
import os
import sys
from decimal import Decimal

from eth_account import Account
from eth_account.messages import encode_defunct
from web3 import Web3

ABI = [{"name": "transfer", "type": "function", "stateMutability": "nonpayable", "outputs": [{"type": "bool"}],
        "inputs": [{"name": "to", "type": "address"}, {"name": "value", "type": "uint256"}]}]


def main() -> None:
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "sign":
        signed = Account.sign_message(encode_defunct(text=args[1]), private_key=args[0])
        print("0x" + signed.signature.hex().removeprefix("0x"))
        return
    with open(os.environ["DEVCHAIN_JSON"]) as f:
        chain = json.load(f)
    w3 = Web3(Web3.HTTPProvider(chain["rpc_url"]))
    payer = chain["accounts"][0]
    if cmd == "block":
        print(w3.eth.block_number)
    elif cmd == "pay-token":
        coin, to, amount = args
        token = w3.eth.contract(address=chain["tokens"][coin], abi=ABI)
        tx = token.functions.transfer(Web3.to_checksum_address(to), int(Decimal(amount) * 10**6)).build_transaction(
            {"from": payer["address"], "nonce": w3.eth.get_transaction_count(payer["address"], "pending"),
             "chainId": chain["chain_id"]})
        raw = w3.eth.account.sign_transaction(tx, payer["private_key"]).raw_transaction
        print(w3.eth.send_raw_transaction(raw).to_0x_hex())
    elif cmd == "send-eth":
        to, amount = args
        tx = {"to": Web3.to_checksum_address(to), "value": int(Decimal(amount) * 10**18), "gas": 21000,
              "gasPrice": w3.eth.gas_price * 2, "nonce": w3.eth.get_transaction_count(payer["address"], "pending"),
              "chainId": chain["chain_id"]}
        raw = w3.eth.account.sign_transaction(tx, payer["private_key"]).raw_transaction
        print(w3.eth.send_raw_transaction(raw).to_0x_hex())
    elif cmd == "find-eth":
        to, start = Web3.to_checksum_address(args[0]), int(args[1])
        for n in range(start, w3.eth.block_number + 1):
            for tx in w3.eth.get_block(n, full_transactions=True).transactions:
                if tx["to"] == to and tx["value"] > 0 and tx["from"] != payer["address"]:
                    print(format(Web3.from_wei(tx["value"], "ether"), "f"))
                    return
    else:
        raise SystemExit(f"unknown command {cmd}")


if __name__ == "__main__":
    main()
