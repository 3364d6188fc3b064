"""The UTXO rail on the worker's litecoind (tests/litecoin.py)."""

from tests.litecoin import account, litecoin  # noqa: F401
