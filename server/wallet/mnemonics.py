"""Which mnemonic a mode uses. Live mode: the configured `wallet_mnemonic`, never a generated one. Test mode: its own
seed, never the live one: the configured `wallet_test_mnemonic`, or a development mnemonic generated on first start
into var/wallet.mnemonic.

Why a separate seed and not another path of the live one: test-mode keys sign on public test networks and are handled
casually (exported, shared with developers). Under BIP-32 an extended private key of a non-hardened child together
with its parent's public key reveals the parent's private key, and any mistake in path separation would hand out live
keys; with two seeds, knowing every test key says nothing about the live ones.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from server import keyfiles
from server.errors import Unavailable
from server.rails.hd import WalletError, check_mnemonic, new_mnemonic

if TYPE_CHECKING:
    from server.config import Settings

DEV_FILE = "wallet.mnemonic"


def _normal(mnemonic: str) -> str:
    return " ".join(mnemonic.split())


class Keys:
    def __init__(self, configured: str, var_dir: Path = keyfiles.VAR, *, test_configured: str = "") -> None:
        self._configured = _normal(configured)
        self._test = _normal(test_configured)
        self._var_dir = var_dir
        if self._configured:
            check_mnemonic(self._configured)
        if self._test:
            check_mnemonic(self._test)
        if self._test and self._test == self._configured:
            raise WalletError("wallet_test_mnemonic must differ from wallet_mnemonic: test mode never uses live keys")

    @classmethod
    def of(cls, settings: Settings, var_dir: Path = keyfiles.VAR) -> Keys:
        return cls(settings.wallet_mnemonic, var_dir, test_configured=settings.wallet_test_mnemonic)

    @property
    def live_ready(self) -> bool:
        return bool(self._configured)

    def mnemonic(self, livemode: bool) -> str:
        if livemode:
            if not self._configured:
                raise Unavailable("live payments need a configured wallet_mnemonic (PAYGATE_WALLET_MNEMONIC)")
            return self._configured
        if not self._test:
            self._test = self._dev()
        return self._test

    def _dev(self) -> str:
        dev = _normal(keyfiles.load_or_create(DEV_FILE, new_mnemonic, self._var_dir))
        try:
            check_mnemonic(dev)
        except WalletError:
            raise WalletError(f"var/{DEV_FILE} is not a valid BIP-39 phrase; delete it to make a new one") from None
        if dev == self._configured:
            raise WalletError(f"var/{DEV_FILE} holds the live wallet_mnemonic: test mode never uses live keys; "
                              "delete it to make a new one")
        return dev
