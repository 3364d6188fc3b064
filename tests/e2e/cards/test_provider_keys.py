"""`paygate merchants set-card-provider`: a merchant's provider_a keys per mode, the secrets sealed at rest."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

from tests.e2e.cards.support import rows
from tests.harness import Service, paygate


def test_set_card_provider_seals_the_secret_key_and_webhook_secret(service: Service, merchant: dict[str, Any]) -> None:
    done = paygate(service.env, service.workdir, "merchants", "set-card-provider", "--merchant",
                   merchant["merchant_id"], "--mode", "test", "--secret-key", "sk_test_cli0123456789",
                   "--publishable-key", "pk_test_cli0123456789", "--webhook-secret", "whsec_cli0123456789")
    assert done.returncode == 0, done.stderr
    assert "sk_test_cli0123456789" not in done.stdout + done.stderr
    [row] = rows(service, "SELECT * FROM provider_accounts WHERE merchant_id = :m", m=merchant["merchant_id"])
    assert row["secret_key"].startswith("fernet:") and "sk_test_cli" not in row["secret_key"]
    assert row["webhook_secret"].startswith("fernet:") and "whsec_cli" not in row["webhook_secret"]
    assert row["publishable_key"] == "pk_test_cli0123456789"


def test_set_card_provider_refuses_a_live_key_in_test_mode(service: Service, merchant: dict[str, Any]) -> None:
    done = paygate(service.env, service.workdir, "merchants", "set-card-provider", "--merchant",
                   merchant["merchant_id"], "--mode", "test", "--secret-key", "sk_live_abc0123456789",
                   "--publishable-key", "pk_test_abc0123456789")
    assert done.returncode == 2
    assert "--secret-key" in done.stderr and "sk_test_" in done.stderr


def test_set_card_provider_refuses_an_unknown_merchant(service: Service) -> None:
    done = paygate(service.env, service.workdir, "merchants", "set-card-provider", "--merchant", "mch_nope",
                   "--mode", "test", "--secret-key", "sk_test_abc0123456789",
                   "--publishable-key", "pk_test_abc0123456789")
    assert done.returncode == 2 and "--merchant" in done.stderr


def test_set_card_provider_reads_a_live_secret_key_from_stdin(service: Service, merchant: dict[str, Any]) -> None:
    # The README's way for real keys: `--secret-key -` keeps the key out of the process list.
    done = subprocess.run([sys.executable, "-m", "server.boot.cli", "merchants", "set-card-provider", "--merchant",
                           merchant["merchant_id"], "--mode", "live", "--secret-key", "-",
                           "--publishable-key", "pk_live_cli0123456789", "--webhook-secret", "whsec_live0123456789"],
                          env=service.env, cwd=service.workdir, input="sk_live_stdin0123456789\n", text=True,
                          capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    [live] = rows(service, "SELECT * FROM provider_accounts WHERE merchant_id = :m AND livemode = :t",
                  m=merchant["merchant_id"], t=True)
    assert live["secret_key"].startswith("fernet:") and "sk_live_stdin" not in live["secret_key"]
    assert live["publishable_key"] == "pk_live_cli0123456789"
    [test] = rows(service, "SELECT * FROM provider_accounts WHERE merchant_id = :m AND livemode = :f",
                  m=merchant["merchant_id"], f=False)
    assert test["publishable_key"] == merchant["provider_a"]["publishable_key"]  # the test mode's keys stand
