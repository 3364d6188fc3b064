"""Per-merchant HD wallets: deposit addresses and the treasury address. The seed never enters the database.

Paths (BIP-32/44, EVM coin type 60), with one account number per merchant and mode allocated in the database:

    m/44'/60'/<account>'/0/<index>   deposit addresses, index from a database counter (never handed out twice)
    m/44'/60'/<account>'/1/0         the treasury address (pays refunds; the merchant funds it)
"""
