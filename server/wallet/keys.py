"""Which mnemonic a mode uses: the configured `wallet_mnemonic`, or in test mode only a development mnemonic
generated on first start into var/wallet.mnemonic. Live mode never runs on a generated seed."""

from __future__ import annotations

from pathlib import Path

from server import keyfiles
from server.errors import Unavailable
from server.wallet.hd import WalletError, check_mnemonic, new_mnemonic

DEV_FILE = "wallet.mnemonic"


class Keys:
    def __init__(self, configured: str, var_dir: Path = keyfiles.VAR) -> None:
        self._configured = " ".join(configured.split())
        self._var_dir = var_dir
        self._dev: str | None = None
        if self._configured:
            check_mnemonic(self._configured)

    @property
    def live_ready(self) -> bool:
        return bool(self._configured)

    def mnemonic(self, livemode: bool) -> str:
        if self._configured:
            return self._configured
        if livemode:
            raise Unavailable("live payments need a configured wallet_mnemonic (PAYGATE_WALLET_MNEMONIC)")
        if self._dev is None:
            self._dev = keyfiles.load_or_create(DEV_FILE, new_mnemonic, self._var_dir)
            try:
                check_mnemonic(self._dev)
            except WalletError:
                raise WalletError(f"var/{DEV_FILE} is not a valid BIP-39 phrase; delete it to make a new one") \
                    from None
        return self._dev
