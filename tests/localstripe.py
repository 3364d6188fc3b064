"""localstripe (PyPI), provider_a's stand-in: a real subprocess on a free loopback port, fresh state every time.

`--from-scratch` always: every instance writes its state to `localstripe.pickle` in the system temp folder and
would otherwise read another run's back (../shared/STACK.md); each instance also gets its own TMPDIR, so parallel
test workers never share that file.
"""

from __future__ import annotations

import secrets
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from tests.harness import TLS, free_port


@dataclass
class LocalStripe:
    url: str
    process: subprocess.Popen[bytes]
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text() if self.log_path.exists() else ""

    def tokenize(self, publishable_key: str, number: str, cvc: str = "123", exp_month: int = 12,
                 exp_year: int = 2034) -> str:
        """What Stripe.js `createToken` does in the payer's browser: the card goes to the provider, a token back."""
        r = httpx.post(f"{self.url}/v1/tokens", data={
            "key": publishable_key, "card[number]": number, "card[cvc]": cvc, "card[exp_month]": str(exp_month),
            "card[exp_year]": str(exp_year)}, timeout=10, verify=TLS)
        assert r.status_code == 200, r.text
        return str(r.json()["id"])

    def authenticate(self, publishable_key: str, payment_id: str, client_secret: str, *, success: bool = True
                     ) -> dict[str, Any]:
        """What Stripe.js `confirmCardPayment(client_secret)` does to finish 3-D Secure on localstripe."""
        r = httpx.post(f"{self.url}/v1/payment_intents/{payment_id}/_authenticate", data={
            "key": publishable_key, "client_secret": client_secret, "success": "true" if success else "false"},
            timeout=10, verify=TLS)
        assert r.status_code == 200, r.text
        return r.json()  # type: ignore[no-any-return]

    def register_webhook(self, url: str, secret: str) -> None:
        """localstripe sends every event to every registered URL, signed with that URL's secret."""
        r = httpx.post(f"{self.url}/_config/webhooks/{secrets.token_hex(6)}", data={"url": url, "secret": secret},
                       timeout=10, verify=TLS)
        assert r.status_code == 200, r.text

    def get(self, path: str, secret_key: str) -> dict[str, Any]:
        r = httpx.get(f"{self.url}{path}", auth=(secret_key, ""), timeout=10, verify=TLS)
        assert r.status_code == 200, r.text
        return r.json()  # type: ignore[no-any-return]


def start_localstripe(workdir: Path) -> LocalStripe:
    workdir.mkdir(parents=True, exist_ok=True)
    port = free_port()
    log_path = workdir / "localstripe.log"
    with log_path.open("ab") as log:
        process = subprocess.Popen([sys.executable, "-m", "localstripe", "--port", str(port), "--from-scratch"],
                                   cwd=workdir, stdout=log, stderr=subprocess.STDOUT,
                                   env={"PATH": "/usr/bin:/bin", "TMPDIR": str(workdir), "HOME": str(workdir)})
    ls = LocalStripe(f"http://127.0.0.1:{port}", process, log_path)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"localstripe exited: {ls.log()}")
        try:
            if httpx.get(f"{ls.url}/js.stripe.com/v3/", timeout=1, verify=TLS).status_code == 200:
                return ls
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    stop_localstripe(ls)
    raise RuntimeError(f"localstripe did not answer: {ls.log()}")


def stop_localstripe(ls: LocalStripe) -> None:
    if ls.process.poll() is None:
        ls.process.terminate()
        try:
            ls.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            ls.process.kill()
