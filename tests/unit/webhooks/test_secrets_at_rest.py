"""DESIGN §14: webhook signing secrets are encrypted at rest (Fernet under `encryption_key`); the migration seals
the rows written before."""

from pathlib import Path

import pytest
import sqlalchemy as sa
from cryptography.fernet import Fernet

from server.config import ConfigError, load_settings
from server.db import migrate
from server.errors import Unavailable
from server.sealing import SecretBox

KEY = Fernet.generate_key().decode()


def test_a_sealed_secret_opens_to_itself_and_does_not_show_it(tmp_path: Path):
    box = SecretBox(KEY, tmp_path)
    sealed = box.seal("whsec_abc", livemode=True)
    assert "whsec_abc" not in sealed and box.open(sealed) == "whsec_abc"


def test_an_old_key_still_opens_after_a_new_one_is_put_first(tmp_path: Path):
    sealed = SecretBox(KEY, tmp_path).seal("whsec_abc", livemode=True)
    assert SecretBox(f"{Fernet.generate_key().decode()},{KEY}", tmp_path).open(sealed) == "whsec_abc"


def test_test_mode_without_a_key_uses_a_development_key_in_var(tmp_path: Path):
    sealed = SecretBox("", tmp_path).seal("whsec_abc", livemode=False)
    assert (tmp_path / "encryption.key").exists()
    assert SecretBox("", tmp_path).open(sealed) == "whsec_abc"


def test_live_mode_needs_a_configured_key(tmp_path: Path):
    with pytest.raises(Unavailable, match="encryption_key"):
        SecretBox("", tmp_path).seal("whsec_abc", livemode=True)


def test_a_malformed_key_is_a_one_line_config_error():
    with pytest.raises(ConfigError, match="encryption_key"):
        load_settings({"PAYGATE_ENCRYPTION_KEY": "not-a-fernet-key"})


def test_the_migration_seals_secrets_stored_in_clear(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PAYGATE_ENCRYPTION_KEY", KEY)
    url = f"sqlite:///{tmp_path / 'm.db'}"
    migrate.upgrade(url, "0007")
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text(
            "INSERT INTO merchants (id, name, created) VALUES ('mch_1', 'M', 1)"))
        conn.execute(sa.text(
            "INSERT INTO webhook_endpoints (id, merchant_id, livemode, url, enabled_events, description, disabled,"
            " secret, previous_secret, api_version, created, updated, sort_key) VALUES ('we_1', 'mch_1', 1,"
            " 'https://x.example/h', '[\"*\"]', '', 0, 'whsec_current', 'whsec_previous', '2024-01-01', 1, 1, 1)"))
    migrate.upgrade(url)
    with engine.connect() as conn:
        secret, previous = conn.execute(sa.text("SELECT secret, previous_secret FROM webhook_endpoints")).one()
    engine.dispose()
    assert "whsec_" not in secret + previous
    box = SecretBox(KEY, tmp_path)
    assert (box.open(secret), box.open(previous)) == ("whsec_current", "whsec_previous")
