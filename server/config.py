"""Settings: a TOML file (`PAYGATE_CONFIG`, default `paygate.toml` when present) and environment overrides.

A bad value raises `ConfigError` with one line that names the setting; the CLI prints that line and exits.
"""

from __future__ import annotations

import ipaddress
import json
import math
import os
import re
import ssl
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit

from cryptography.fernet import Fernet

# An address of some family (its rail validates it per network): printable ASCII, no spaces, of a sane length.
_ADDRESS = re.compile(r"[0-9A-Za-z:_.-]{20,128}")

DEFAULT_DATABASE_URL = "sqlite:///var/paygate.db"
DEFAULT_NETWORKS_FILE = Path("var/networks.dev.toml")
# Price of one unit in USD, by coin or fiat code. A rate source behind `server.rates`; the live feed is an adapter.
DEFAULT_RATES: tuple[tuple[str, Decimal], ...] = tuple(
    (k, Decimal(v)) for k, v in {"USD": "1", "EUR": "1.08", "GBP": "1.27", "USDT": "1", "USDC": "1",
                                 "ETH": "3000", "POL": "0.5", "BNB": "600", "LTC": "80", "BTC": "60000"}.items())
# The least worth sweeping from a deposit address (DESIGN §15: worth more than the network fee), in the asset's
# units, keyed by asset id or coin (an asset id wins over its coin); an asset named by neither: one unit.
DEFAULT_SWEEP_MINIMUMS: tuple[tuple[str, Decimal], ...] = tuple(
    (k, Decimal(v)) for k, v in {"ETH": "0.001", "BNB": "0.005", "POL": "1", "USDT": "1", "USDC": "1",
                                 "LTC": "0.01", "BTC": "0.0001"}.items())
_PLAIN_DECIMAL = re.compile(r"[0-9]+(\.[0-9]+)?", re.ASCII)


@dataclass(frozen=True)
class WebhookSettings:
    """`[webhooks]` in paygate.toml."""

    # Deliveries to loopback, private and link-local addresses: refused in both modes unless the operator allows
    # them (`make run` and the tests do, so a receiver on the same machine works).
    allow_private_targets: bool = False
    # One total deadline per delivery attempt (lookup, connect, headers and body).
    timeout_seconds: float = 10.0
    # Header names each delivery carries, all with the same signature: other SDKs' webhook helpers read their own
    # name (DESIGN §12). `[webhooks] signature_headers = [...]` or PAYGATE_WEBHOOK_SIGNATURE_HEADERS (comma-separated).
    signature_headers: tuple[str, ...] = ("Paygate-Signature",)


class ConfigError(Exception):
    """A setting that stops start-up. `str()` is the one line shown to the operator."""


@dataclass(frozen=True)
class Settings:
    database_url: str = DEFAULT_DATABASE_URL
    # PostgreSQL only: connections each process keeps open for units of work (5 more in bursts). With the key look-up's
    # 3 and the rate limiter's 5 + 5, a process holds at most this + 18; every process of every machine counts
    # against the server's max_connections.
    database_pool_size: int = 10
    # PostgreSQL only: `database_url` points at a pooler that hands a server connection out per transaction
    # (PgBouncer's pool_mode = transaction). A statement prepared on one server connection would then run on another:
    # none is prepared, and no server setting is sent at connect (they would stay on a server connection others get).
    database_transaction_pooling: bool = False
    http_addr: str = "127.0.0.1:8000"
    grpc_addr: str = "127.0.0.1:50051"
    # `GET /metrics` (Prometheus, DESIGN §22) on its own HOST:PORT instead of on the facade; empty: on the facade.
    # `[metrics] addr = "…"` in paygate.toml. Under `serve --workers N` the supervisor serves it, summing the workers.
    metrics_addr: str = ""
    checkout_url: str = ""
    networks_file: Path | None = None
    wallet_mnemonic: str = ""
    # Test mode's own seed (never the live one); empty: one generated into var/wallet.mnemonic.
    wallet_test_mnemonic: str = ""
    # A refund transaction not mined this long after it was (re)signed is replaced with bumped fees.
    refund_stuck_seconds: int = 120
    # The scheduler sweeps deposit addresses into the treasury (DESIGN §15); off: the funds stay where they arrived.
    sweeps: bool = True
    max_body_bytes: int = 1 << 20
    # Slow clients (DESIGN §16, server/http_deadlines.py): a request's head must arrive within the first, its body
    # within the second after its head; each serving process holds at most `http_max_connections` connections and
    # closes further ones as it accepts them.
    http_header_timeout_seconds: int = 10
    http_body_timeout_seconds: int = 10
    http_max_connections: int = 1000
    tx_fee_percent: Decimal = Decimal("1")
    log_level: str = "INFO"
    providers: frozenset[str] = field(default_factory=frozenset)
    # Senders' and payout destinations' addresses of any family, as given: each network's rail compares them in its
    # own stored form (server/aml/screener.py `DenyList`).
    aml_deny_list: frozenset[str] = field(default_factory=frozenset)
    aml_mode: str = "sync"  # sync: decide when a transfer is confirmed; async: decide on a later watcher pass
    # Key of the HMAC that derives client secrets; empty: a development key in var/ (test mode only).
    secret_key: str = ""
    rates: tuple[tuple[str, Decimal], ...] = DEFAULT_RATES
    sweep_minimums: tuple[tuple[str, Decimal], ...] = DEFAULT_SWEEP_MINIMUMS
    # How long a payout or refund waits for its approvers (DESIGN §15) before paygate cancels it and releases its
    # amount; 0: it waits until someone decides.
    approval_expiry_seconds: int = 7 * 86_400
    # How often a scheduler job runs, by job name, where the job's own default will not do (a chain with fast blocks
    # polled more often; the tests' services, whose payments would otherwise wait seconds for each pass).
    job_seconds: tuple[tuple[str, float], ...] = ()
    # Payment attempts (charges, each with its own watched deposit address) one intent may open in all.
    max_charges_per_intent: int = 20
    # Stock holds (DESIGN §16, server/products/stock.py): an unpaid payment link purchase holds its tracked units this
    # long after it was made (money on its way holds them longer), and one shopper (customer, else client IP) holds
    # at most this many units of a variant at once.
    checkout_hold_seconds: int = 900
    max_held_units_per_shopper: int = 10
    # Fernet key(s) sealing secrets at rest, newest first, comma-separated; empty: a development key in var/
    # (test mode only).
    encryption_key: str = ""
    webhooks: WebhookSettings = field(default_factory=WebhookSettings)
    # gRPC transport. TLS on the port when cert and key are set; the facade's channel uses TLS when the CA is set
    # (or, in one process with a TLS server, trusts the server's own certificate). Client cert/key: mutual TLS
    # from the facade; client CA: the server requires client certificates signed by it.
    grpc_tls_cert: Path | None = None
    grpc_tls_key: Path | None = None
    grpc_tls_ca: Path | None = None
    grpc_tls_client_cert: Path | None = None
    grpc_tls_client_key: Path | None = None
    grpc_tls_client_ca: Path | None = None
    grpc_tls_server_name: str = ""  # the name the facade checks in the server's certificate (default: the host)
    # How the facade reaches the gRPC server of its own process: `in_process` (the servicers called through the
    # same pipeline, no loopback hop; DESIGN §13) or `grpc` (a real channel to grpc_addr, as `--only http` always
    # uses). The answers are the same either way; `grpc` is there to prove it (the tests run both).
    facade_channel: str = "in_process"
    # SQLite only: concurrent write units of work share commits (server/db/group_commit.py). Off, each unit commits
    # alone under a process-wide lock. bench/RESULTS.md has what it measured on which machine.
    sqlite_group_commit: bool = True
    # Server reflection. Default: on in a development deployment, off in a live one (see `_reflection_default`).
    grpc_reflection: bool = True
    # Token buckets (requests per second, burst); a rate of 0 turns that limit off.
    rate_limit_per_second: float = 100.0  # per secret key
    rate_limit_burst: int = 200
    rate_limit_checkout_per_second: float = 10.0  # per client secret, on checkout calls
    rate_limit_checkout_burst: int = 20
    rate_limit_ip_per_second: float = 50.0  # per client IP, on calls without a secret key
    rate_limit_ip_burst: int = 100
    # Peers (IPs or CIDRs) whose X-Forwarded-For the facade believes, and whose client IP metadata the gRPC server
    # believes (besides loopback, where the facade of the same host runs).
    trusted_proxies: tuple[str, ...] = ()
    # Outgoing mail (one-time codes of the checkout page): smtp://[user:password@]host[:port] (STARTTLS when the
    # server offers it) or smtps://… (TLS from the start); empty: each message is written as a .eml file under
    # mail_dir instead (development and `make run`).
    # Lifetime of a crypto quote (and the time a shopper has to send the amount at its rate).
    quote_seconds: int = 1800
    # How long after a quote lapsed a transfer still pays at its rate: one broadcast just before may be mined a
    # little later (a couple of blocks and a watcher pass). Longer hands the payer a free option on the price. Kept
    # on each charge when it is opened, so a change applies to new quotes only.
    quote_grace_seconds: int = 30
    smtp_url: str = ""
    # Where the `stripe` library sends provider_a calls (DESIGN §9): empty for Stripe's own API; localstripe's URL in
    # the tests and `make run`.
    provider_a_api_base: str = ""
    mail_from: str = "paygate <no-reply@paygate.invalid>"
    mail_dir: Path = Path("var/mail")
    # Phone one-time codes: the domain of an e-mail-to-SMS gateway; a code for +4712345678 is mailed (through
    # smtp_url or mail_dir, like e-mailed codes) to 4712345678@<domain>. Empty: phone codes are refused.
    sms_email_gateway: str = ""
    # One-time codes sent per client IP (across merchants) and per payment link in an hour, besides 5 per address
    # (DESIGN §16): anyone may ask, so these bound the mail one client or one link can make paygate send.
    code_sends_per_ip_per_hour: int = 10
    code_sends_per_link_per_hour: int = 100
    # Card testing (DESIGN §16): card attempts a shopper's client IP and a customer may make in an hour, declines in an
    # hour for either before card payment is refused there for an hour, and card attempts one intent takes.
    card_attempts_per_ip_per_hour: int = 10
    card_attempts_per_customer_per_hour: int = 10
    card_declines_per_hour: int = 3
    card_attempts_per_intent: int = 5

    @property
    def card_js_url(self) -> str:
        """Stripe.js for the checkout page's card step: from the provider's API base when it is pointed elsewhere
        (localstripe serves its stand-in at `/js.stripe.com/v3/`), else Stripe's own."""
        base = self.provider_a_api_base.rstrip("/")
        return f"{base}/js.stripe.com/v3/" if base else "https://js.stripe.com/v3/"

    @property
    def checkout_base(self) -> str:
        return (self.checkout_url or f"http://{self.http_addr}/checkout").rstrip("/")

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")


_ENV = {
    "PAYGATE_DATABASE_URL": "database_url",
    "PAYGATE_HTTP_ADDR": "http_addr",
    "PAYGATE_GRPC_ADDR": "grpc_addr",
    "PAYGATE_METRICS_ADDR": "metrics_addr",
    "PAYGATE_CHECKOUT_URL": "checkout_url",
    "PAYGATE_NETWORKS": "networks_file",
    "PAYGATE_WALLET_MNEMONIC": "wallet_mnemonic",
    "PAYGATE_WALLET_TEST_MNEMONIC": "wallet_test_mnemonic",
    "PAYGATE_REFUND_STUCK_SECONDS": "refund_stuck_seconds",
    "PAYGATE_SWEEPS": "sweeps",
    "PAYGATE_SWEEP_MINIMUMS": "sweep_minimums",  # JSON: {"ETH": "0.001", "USDT-ETH": "5"}
    "PAYGATE_APPROVAL_EXPIRY_SECONDS": "approval_expiry_seconds",
    "PAYGATE_JOB_SECONDS": "job_seconds",  # JSON: {"watch_chains": 1, "send_sweeps": 2}
    "PAYGATE_LOG_LEVEL": "log_level",
    "PAYGATE_FACADE_CHANNEL": "facade_channel",
    "PAYGATE_SQLITE_GROUP_COMMIT": "sqlite_group_commit",
    "PAYGATE_SECRET_KEY": "secret_key",
    "PAYGATE_GRPC_TLS_CERT": "grpc_tls_cert",
    "PAYGATE_GRPC_TLS_KEY": "grpc_tls_key",
    "PAYGATE_GRPC_TLS_CA": "grpc_tls_ca",
    "PAYGATE_GRPC_TLS_CLIENT_CERT": "grpc_tls_client_cert",
    "PAYGATE_GRPC_TLS_CLIENT_KEY": "grpc_tls_client_key",
    "PAYGATE_GRPC_TLS_CLIENT_CA": "grpc_tls_client_ca",
    "PAYGATE_GRPC_TLS_SERVER_NAME": "grpc_tls_server_name",
    "PAYGATE_GRPC_REFLECTION": "grpc_reflection",
    "PAYGATE_RATE_LIMIT_PER_SECOND": "rate_limit_per_second",
    "PAYGATE_RATE_LIMIT_BURST": "rate_limit_burst",
    "PAYGATE_RATE_LIMIT_CHECKOUT_PER_SECOND": "rate_limit_checkout_per_second",
    "PAYGATE_RATE_LIMIT_CHECKOUT_BURST": "rate_limit_checkout_burst",
    "PAYGATE_RATE_LIMIT_IP_PER_SECOND": "rate_limit_ip_per_second",
    "PAYGATE_RATE_LIMIT_IP_BURST": "rate_limit_ip_burst",
    "PAYGATE_TRUSTED_PROXIES": "trusted_proxies",  # comma-separated
    "PAYGATE_ENCRYPTION_KEY": "encryption_key",
    "PAYGATE_SMTP_URL": "smtp_url",
    "PAYGATE_QUOTE_SECONDS": "quote_seconds",
    "PAYGATE_QUOTE_GRACE_SECONDS": "quote_grace_seconds",
    "PAYGATE_DATABASE_POOL_SIZE": "database_pool_size",
    "PAYGATE_DATABASE_TRANSACTION_POOLING": "database_transaction_pooling",
    "PAYGATE_PROVIDER_A_API_BASE": "provider_a_api_base",
    "PAYGATE_MAIL_FROM": "mail_from",
    "PAYGATE_MAIL_DIR": "mail_dir",
    "PAYGATE_SMS_EMAIL_GATEWAY": "sms_email_gateway",
    "PAYGATE_CHECKOUT_HOLD_SECONDS": "checkout_hold_seconds",
    "PAYGATE_MAX_HELD_UNITS_PER_SHOPPER": "max_held_units_per_shopper",
    "PAYGATE_CODE_SENDS_PER_IP_PER_HOUR": "code_sends_per_ip_per_hour",
    "PAYGATE_CODE_SENDS_PER_LINK_PER_HOUR": "code_sends_per_link_per_hour",
    "PAYGATE_CARD_ATTEMPTS_PER_IP_PER_HOUR": "card_attempts_per_ip_per_hour",
    "PAYGATE_CARD_ATTEMPTS_PER_CUSTOMER_PER_HOUR": "card_attempts_per_customer_per_hour",
    "PAYGATE_CARD_DECLINES_PER_HOUR": "card_declines_per_hour",
    "PAYGATE_CARD_ATTEMPTS_PER_INTENT": "card_attempts_per_intent",
    "PAYGATE_HTTP_HEADER_TIMEOUT_SECONDS": "http_header_timeout_seconds",
    "PAYGATE_HTTP_BODY_TIMEOUT_SECONDS": "http_body_timeout_seconds",
    "PAYGATE_HTTP_MAX_CONNECTIONS": "http_max_connections",
}


_WEBHOOK_ENV = {
    "PAYGATE_WEBHOOK_ALLOW_PRIVATE": "allow_private_targets",
    "PAYGATE_WEBHOOK_TIMEOUT_SECONDS": "timeout_seconds",
    "PAYGATE_WEBHOOK_SIGNATURE_HEADERS": "signature_headers",  # comma-separated
}
# `[grpc] reflection = false` in paygate.toml is `grpc_reflection`; `[rate_limit] burst = 50` is `rate_limit_burst`;
# `[http] max_connections = 2000` is `http_max_connections`; `[metrics] addr` is `metrics_addr`.
_SECTIONS = ("grpc", "rate_limit", "http", "metrics")


def load_settings(env: Mapping[str, str] | None = None) -> Settings:
    env = os.environ if env is None else env
    raw: dict[str, object] = {}
    config_path = env.get("PAYGATE_CONFIG")
    if config_path:
        raw.update(_read_toml(Path(config_path), required=True))
    elif Path("paygate.toml").exists():
        raw.update(_read_toml(Path("paygate.toml"), required=False))
    for var, key in _ENV.items():
        if env.get(var):
            raw[key] = env[var]
    overrides = {key: env[var] for var, key in _WEBHOOK_ENV.items() if env.get(var)}
    if overrides:
        webhooks = raw.get("webhooks")
        raw["webhooks"] = {**webhooks, **overrides} if isinstance(webhooks, dict) else overrides
    return _validate(raw)


def _read_toml(path: Path, *, required: bool) -> dict[str, object]:
    try:
        with path.open("rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        if required:
            raise ConfigError(f"config file {path} (PAYGATE_CONFIG) does not exist") from None
        return {}
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"config file {path} is not valid TOML: {e}") from None
    for section in _SECTIONS:
        table = data.pop(section, None)
        if isinstance(table, dict):
            data.update({f"{section}_{k}": v for k, v in table.items()})
        elif table is not None:
            raise ConfigError(f"config file {path}: [{section}] must be a table")
    known = set(Settings.__dataclass_fields__)
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(f"config file {path}: unknown setting {unknown[0]!r}")
    return data


def redact_url(url: str) -> str:
    """The database URL as it may be printed: the password of its user part and the value of any query parameter
    that names a password (`?password=`, `sslpassword=`) become `***`."""
    try:
        parts = urlsplit(url)
        query = urlencode([(k, "***" if "pass" in k.lower() else v) for k, v in parse_qsl(parts.query, True)],
                          safe="*/:@")
    except ValueError:
        return "(a database URL that cannot be read)"
    netloc = parts.netloc
    if "@" in netloc:
        creds, _, host = netloc.rpartition("@")
        netloc = f"{creds.split(':')[0]}:***@{host}" if ":" in creds else netloc
    # Built by hand: urlunsplit drops the empty authority of sqlite:///PATH.
    return (f"{parts.scheme}://{netloc}{parts.path}" + (f"?{query}" if query else "")
            + (f"#{parts.fragment}" if parts.fragment else ""))


def _validate(raw: dict[str, object]) -> Settings:
    s: dict[str, object] = {}
    url = str(raw.get("database_url", DEFAULT_DATABASE_URL))
    scheme = urlsplit(url).scheme.split("+")[0]
    if scheme not in ("sqlite", "postgresql", "postgres"):
        raise ConfigError(f"database_url {redact_url(url)!r}: use sqlite:///PATH or postgresql://USER@HOST/DB")
    s["database_url"] = url
    for key in ("http_addr", "grpc_addr"):
        value = str(raw.get(key, Settings.__dataclass_fields__[key].default))
        host, _, port = value.rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ConfigError(f"{key} {value!r}: expected HOST:PORT, e.g. 127.0.0.1:8000")
        s[key] = value
    metrics_addr = str(raw.get("metrics_addr", ""))
    if metrics_addr:
        host, _, port = metrics_addr.rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ConfigError(f"metrics_addr {metrics_addr!r}: expected HOST:PORT, e.g. 127.0.0.1:9100")
        if metrics_addr in (s["http_addr"], s["grpc_addr"]):
            raise ConfigError(f"metrics_addr {metrics_addr!r}: must differ from http_addr and grpc_addr")
    s["metrics_addr"] = metrics_addr
    checkout = str(raw.get("checkout_url", ""))
    if checkout and urlsplit(checkout).scheme not in ("http", "https"):
        raise ConfigError(f"checkout_url {checkout!r}: expected an http(s) URL")
    s["checkout_url"] = checkout
    api_base = str(raw.get("provider_a_api_base", "")).rstrip("/")
    if api_base and (urlsplit(api_base).scheme not in ("http", "https") or not urlsplit(api_base).hostname):
        raise ConfigError(f"provider_a_api_base {api_base!r} (PAYGATE_PROVIDER_A_API_BASE): expected an http(s) URL")
    s["provider_a_api_base"] = api_base
    if raw.get("networks_file"):
        path = Path(str(raw["networks_file"]))
        if not path.exists():
            raise ConfigError(f"networks_file {path} (PAYGATE_NETWORKS) does not exist")
        s["networks_file"] = path
    elif DEFAULT_NETWORKS_FILE.exists():
        s["networks_file"] = DEFAULT_NETWORKS_FILE
    for key in ("wallet_mnemonic", "wallet_test_mnemonic"):
        mnemonic = str(raw.get(key, ""))
        if mnemonic and Path(mnemonic).is_file():
            mnemonic = Path(mnemonic).read_text().strip()
        s[key] = mnemonic
    if s["wallet_test_mnemonic"] and " ".join(str(s["wallet_test_mnemonic"]).split()) == \
            " ".join(str(s["wallet_mnemonic"]).split()):
        raise ConfigError("wallet_test_mnemonic must differ from wallet_mnemonic: test mode never uses live keys")
    try:
        s["max_body_bytes"] = int(str(raw.get("max_body_bytes", 1 << 20)))
        s["refund_stuck_seconds"] = int(str(raw.get("refund_stuck_seconds", 120)))
        fee = Decimal(str(raw.get("tx_fee_percent", "1")))
    except (ValueError, InvalidOperation):
        raise ConfigError("max_body_bytes, refund_stuck_seconds and tx_fee_percent must be numbers") from None
    if int(str(s["refund_stuck_seconds"])) < 1:
        raise ConfigError("refund_stuck_seconds: expected a whole number of seconds, at least 1")
    if not Decimal(0) <= fee <= Decimal(100):
        raise ConfigError(f"tx_fee_percent {fee}: expected 0 to 100")
    s["tx_fee_percent"] = fee
    channel = str(raw.get("facade_channel", "in_process"))
    if channel not in ("in_process", "grpc"):
        raise ConfigError(f"facade_channel {channel!r}: expected in_process or grpc")
    s["facade_channel"] = channel
    level = str(raw.get("log_level", "INFO")).upper()
    if level not in ("DEBUG", "INFO", "WARNING", "ERROR"):
        raise ConfigError(f"log_level {level!r}: expected DEBUG, INFO, WARNING or ERROR")
    s["log_level"] = level
    providers = raw.get("providers", [])
    if not isinstance(providers, list):
        raise ConfigError("providers: expected a list of provider ids, e.g. [\"provider_a\"]")
    s["providers"] = frozenset(str(p) for p in providers)
    deny = raw.get("aml_deny_list", [])
    if not isinstance(deny, list) or not all(isinstance(a, str) and _ADDRESS.fullmatch(a) for a in deny):
        raise ConfigError("aml_deny_list: expected a list of addresses, e.g. [\"0x8576…\", \"ltc1q…\"]")
    s["aml_deny_list"] = frozenset(deny)
    mode = str(raw.get("aml_mode", "sync"))
    if mode not in ("sync", "async"):
        raise ConfigError(f"aml_mode {mode!r}: expected sync or async")
    s["aml_mode"] = mode
    secret_key = str(raw.get("secret_key", ""))
    if secret_key and Path(secret_key).is_file():
        secret_key = Path(secret_key).read_text().strip()
    if secret_key and len(secret_key) < 32:
        raise ConfigError("secret_key: use at least 32 random characters (or a path to a file holding them)")
    s["secret_key"] = secret_key
    encryption_key = str(raw.get("encryption_key", ""))
    if encryption_key and Path(encryption_key).is_file():
        encryption_key = Path(encryption_key).read_text().strip()
    try:
        for key in (k.strip() for k in encryption_key.split(",") if k.strip()):
            Fernet(key)
    except ValueError:
        raise ConfigError("encryption_key: expected Fernet keys (32 url-safe base64 bytes each, comma-separated), "
                          "or a path to a file holding them") from None
    s["encryption_key"] = encryption_key
    s["rates"] = _rates(raw.get("rates"))
    s["sweep_minimums"] = _sweep_minimums(raw.get("sweep_minimums"))
    s["approval_expiry_seconds"] = _whole(raw, "approval_expiry_seconds", Settings.approval_expiry_seconds, 0,
                                          366 * 86_400)
    s["job_seconds"] = _job_seconds(raw.get("job_seconds"))
    charges = raw.get("max_charges_per_intent", 20)
    if not isinstance(charges, int) or isinstance(charges, bool) or not 1 <= charges <= 1000:
        raise ConfigError(f"max_charges_per_intent {charges!r}: expected a whole number from 1 to 1000")
    s["max_charges_per_intent"] = charges
    # Up to an intent's longest life (30 days), past which a hold would outlast anything it holds for; a purchase
    # buys at most 10,000 units (server/payment_intents/pricing.py).
    s["checkout_hold_seconds"] = _whole(raw, "checkout_hold_seconds", Settings.checkout_hold_seconds, 1, 30 * 86_400)
    s["max_held_units_per_shopper"] = _whole(raw, "max_held_units_per_shopper", Settings.max_held_units_per_shopper,
                                             1, 10_000)
    s["database_pool_size"] = _whole(raw, "database_pool_size", Settings.database_pool_size, 1, 200)
    s["database_transaction_pooling"] = _flag(raw, "database_transaction_pooling", False)
    s["http_header_timeout_seconds"] = _whole(raw, "http_header_timeout_seconds",
                                              Settings.http_header_timeout_seconds, 1, 600)
    s["http_body_timeout_seconds"] = _whole(raw, "http_body_timeout_seconds", Settings.http_body_timeout_seconds, 1,
                                            600)
    s["http_max_connections"] = _whole(raw, "http_max_connections", Settings.http_max_connections, 1, 100_000)
    s["webhooks"] = _webhooks(raw.get("webhooks"))
    s.update(_grpc_tls(raw))
    s["sweeps"] = _flag(raw, "sweeps", True)
    s["grpc_reflection"] = _flag(raw, "grpc_reflection", _reflection_default(str(s["wallet_mnemonic"]), secret_key))
    s["sqlite_group_commit"] = _flag(raw, "sqlite_group_commit", True)
    s.update(_rate_limits(raw))
    s.update(_mail(raw))
    return Settings(**s)  # type: ignore[arg-type]


def _whole(raw: dict[str, object], name: str, default: int, low: int, high: int) -> int:
    """A whole number from `low` to `high`, from a TOML integer or an environment string of ASCII digits."""
    value = raw.get(name, default)
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        value = int(value.strip())
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ConfigError(f"{name} {value!r}: expected a whole number from {low} to {high}")
    return value


def _mail(raw: dict[str, object]) -> dict[str, object]:
    smtp_url = str(raw.get("smtp_url", "")).strip()
    if smtp_url:
        parts = urlsplit(smtp_url)
        if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
            raise ConfigError("smtp_url: expected smtp://[user:password@]host[:port] or smtps://…")
        try:
            parts.port  # noqa: B018  (raises on a bad port)
        except ValueError:
            raise ConfigError("smtp_url: the port must be a number from 1 to 65535") from None
    mail_from = str(raw.get("mail_from", Settings.mail_from)).strip()
    if "@" not in mail_from:
        raise ConfigError(f"mail_from {mail_from!r}: expected an address, e.g. shop <no-reply@example.com>")
    quote_seconds = _whole(raw, "quote_seconds", Settings.quote_seconds, 5, 24 * 3600)
    quote_grace = _whole(raw, "quote_grace_seconds", Settings.quote_grace_seconds, 0, 3600)
    gateway = str(raw.get("sms_email_gateway", "")).strip().lower()
    if gateway and not _DOMAIN.fullmatch(gateway):
        raise ConfigError(f"sms_email_gateway {gateway!r}: expected a domain, e.g. sms.example.net")
    return {"smtp_url": smtp_url, "mail_from": mail_from, "quote_seconds": quote_seconds,
            "quote_grace_seconds": quote_grace,
            "mail_dir": Path(str(raw.get("mail_dir") or Settings.mail_dir)), "sms_email_gateway": gateway,
            "code_sends_per_ip_per_hour": _whole(raw, "code_sends_per_ip_per_hour",
                                                 Settings.code_sends_per_ip_per_hour, 1, 1_000_000),
            "code_sends_per_link_per_hour": _whole(raw, "code_sends_per_link_per_hour",
                                                   Settings.code_sends_per_link_per_hour, 1, 1_000_000),
            **{name: _whole(raw, name, getattr(Settings, name), 1, 1_000_000)
               for name in ("card_attempts_per_ip_per_hour", "card_attempts_per_customer_per_hour",
                            "card_declines_per_hour", "card_attempts_per_intent")}}


def live_mail_problem(settings: Settings, roles: set[str]) -> str | None:
    """Why `serve` must not start: a live deployment (`wallet_mnemonic` or `secret_key` configured, as for
    `grpc.reflection`) whose mail-sending parts (gRPC: one-time codes; scheduler: invoices) have no `smtp_url`
    would write shoppers' codes and pay links to files instead (DESIGN §16)."""
    if settings.smtp_url or not _live(settings) or not roles & {"grpc", "scheduler"}:
        return None
    return ("smtp_url (PAYGATE_SMTP_URL): required in a live deployment (wallet_mnemonic or secret_key is set); "
            "mail is written to mail_dir files only in development")


def _live(settings: Settings) -> bool:
    return not _reflection_default(settings.wallet_mnemonic, settings.secret_key)


# A host name of two or more ASCII labels (the part after "@" of the e-mail-to-SMS gateway's addresses).
_DOMAIN = re.compile(r"(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]", re.ASCII)


def _reflection_default(mnemonic: str, secret_key: str) -> bool:
    """Reflection is on by default only in a development deployment.

    A deployment is live-capable when either secret that live payments need is configured: the wallet mnemonic
    (live mode refuses to pay without it, DESIGN.md §3) or the client-secret key (`secret_key`, live intents refuse
    without it). Without both, the process runs on development keys generated into var/ and serves test mode only.
    """
    return not (mnemonic or secret_key)


def _flag(raw: dict[str, object], key: str, default: bool) -> bool:
    value = raw.get(key)
    if value is None or value == "":
        return default
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"{key} {value!r}: expected true or false")


def _grpc_tls(raw: dict[str, object]) -> dict[str, object]:
    """TLS files of the gRPC port and of the facade's channel, each checked now: a bad one stops start-up."""
    out: dict[str, object] = {}
    for key in ("grpc_tls_cert", "grpc_tls_key", "grpc_tls_ca", "grpc_tls_client_cert", "grpc_tls_client_key",
                "grpc_tls_client_ca"):
        if raw.get(key):
            path = Path(str(raw[key]))
            if not path.is_file():
                raise ConfigError(f"{key} {path}: no such file")
            out[key] = path
    for cert, key in (("grpc_tls_cert", "grpc_tls_key"), ("grpc_tls_client_cert", "grpc_tls_client_key")):
        if (cert in out) != (key in out):
            missing = key if cert in out else cert
            raise ConfigError(f"{missing}: set {cert} and {key} together (PEM certificate chain and private key)")
        if cert in out:
            try:
                ssl.create_default_context().load_cert_chain(out[cert], out[key])  # type: ignore[arg-type]
            except (ssl.SSLError, OSError, ValueError) as e:
                raise ConfigError(f"{cert} {out[cert]} / {key} {out[key]}: not a PEM certificate and its "
                                  f"private key ({e.__class__.__name__}: {e})") from None
    for ca in ("grpc_tls_ca", "grpc_tls_client_ca"):
        if ca in out:
            try:
                ssl.create_default_context().load_verify_locations(cafile=str(out[ca]))
            except (ssl.SSLError, OSError, ValueError) as e:
                raise ConfigError(f"{ca} {out[ca]}: not a PEM CA certificate ({e})") from None
    if "grpc_tls_client_ca" in out and "grpc_tls_cert" not in out:
        raise ConfigError("grpc_tls_client_ca: requires grpc_tls_cert and grpc_tls_key (mutual TLS needs TLS)")
    out["grpc_tls_server_name"] = str(raw.get("grpc_tls_server_name", ""))
    return out


def _rate_limits(raw: dict[str, object]) -> dict[str, object]:
    out: dict[str, object] = {}
    for scope in ("", "_checkout", "_ip"):
        rate_key, burst_key = f"rate_limit{scope}_per_second", f"rate_limit{scope}_burst"
        fields = Settings.__dataclass_fields__
        try:
            rate = float(str(raw.get(rate_key, fields[rate_key].default)))
            burst = int(str(raw.get(burst_key, fields[burst_key].default)))
        except ValueError:
            raise ConfigError(f"{rate_key} and {burst_key} must be numbers (0 turns the limit off)") from None
        if not 0 <= rate < 1e9 or rate != rate:
            raise ConfigError(f"{rate_key} {rate}: expected 0 (off) or a positive number of requests per second")
        if rate and burst < 1:
            raise ConfigError(f"{burst_key} {burst}: expected at least 1")
        out[rate_key], out[burst_key] = rate, burst
    proxies = raw.get("trusted_proxies", [])
    if isinstance(proxies, str):
        proxies = [p for p in (x.strip() for x in proxies.split(",")) if p]
    if not isinstance(proxies, list):
        raise ConfigError('trusted_proxies: expected a list of IPs or CIDRs, e.g. ["10.0.0.0/8"]')
    for proxy in proxies:
        try:
            ipaddress.ip_network(str(proxy), strict=False)
        except ValueError:
            raise ConfigError(f"trusted_proxies {proxy!r}: expected an IP address or CIDR") from None
    out["trusted_proxies"] = tuple(str(p) for p in proxies)
    return out


def _rates(raw: object) -> tuple[tuple[str, Decimal], ...]:
    """`[rates]` USD prices by coin or fiat code, merged over the defaults: `ETH = "3000"`."""
    if raw is None:
        return DEFAULT_RATES
    if not isinstance(raw, dict):
        raise ConfigError('rates: expected a table of USD prices, e.g. rates = { ETH = "3000" }')
    table = dict(DEFAULT_RATES)
    for code, value in raw.items():
        try:
            price = Decimal(str(value))
        except InvalidOperation:
            price = Decimal(0)
        if not price.is_finite() or price <= 0:
            raise ConfigError(f"rates.{code}: expected a positive decimal price in USD")
        table[str(code)] = price
    return tuple(table.items())


def _sweep_minimums(raw: object) -> tuple[tuple[str, Decimal], ...]:
    """`[sweep_minimums]` (or PAYGATE_SWEEP_MINIMUMS as a JSON object) merged over the defaults: plain decimals
    (ASCII digits, a point, no sign or exponent), as strings or numbers."""
    error = ('sweep_minimums (PAYGATE_SWEEP_MINIMUMS): expected a mapping of asset id or coin to an amount in the '
             'asset\'s units, e.g. {"ETH": "0.001", "USDT-ETH": "5"}')
    if raw is None:
        return DEFAULT_SWEEP_MINIMUMS
    if isinstance(raw, str):
        try:
            raw = json.loads(raw, parse_float=str, parse_int=str, parse_constant=lambda _: None)
        except ValueError:
            raise ConfigError(error) from None
    if not isinstance(raw, dict) or not raw:
        raise ConfigError(error)
    table = dict(DEFAULT_SWEEP_MINIMUMS)
    for key, value in raw.items():
        text = str(value) if isinstance(value, str | int | float) and not isinstance(value, bool) else ""
        if not str(key).strip() or not _PLAIN_DECIMAL.fullmatch(text):
            raise ConfigError(f"sweep_minimums.{key} {value!r} (PAYGATE_SWEEP_MINIMUMS): expected a plain decimal "
                              "amount of at least 0 in the asset's units, e.g. \"0.001\"")
        table[str(key).strip()] = Decimal(text)
    return tuple(table.items())


MIN_JOB_SECONDS, MAX_JOB_SECONDS = 0.1, 86_400.0


def _job_seconds(raw: object) -> tuple[tuple[str, float], ...]:
    """`[job_seconds]` (or PAYGATE_JOB_SECONDS as a JSON object): job name to seconds between its runs. Whether each
    name is a job is checked once the jobs are registered (server/boot/composition.py)."""
    error = ("job_seconds (PAYGATE_JOB_SECONDS): expected a mapping of job name to seconds between runs, "
             'e.g. {"watch_chains": 1}')
    if raw is None:
        return ()
    if isinstance(raw, str):
        try:
            raw = json.loads(raw, parse_constant=lambda _: None)
        except ValueError:
            raise ConfigError(error) from None
    if not isinstance(raw, dict):
        raise ConfigError(error)
    table: dict[str, float] = {}
    for name, value in raw.items():
        number = float(value) if isinstance(value, int | float) and not isinstance(value, bool) else math.nan
        if not MIN_JOB_SECONDS <= number <= MAX_JOB_SECONDS:  # NaN fails both
            raise ConfigError(f"job_seconds.{name} {value!r} (PAYGATE_JOB_SECONDS): expected a number of seconds "
                              f"from {MIN_JOB_SECONDS} to {MAX_JOB_SECONDS:.0f}")
        table[str(name)] = number
    return tuple(sorted(table.items()))


def _webhooks(raw: object) -> WebhookSettings:
    if raw is None:
        return WebhookSettings()
    if not isinstance(raw, dict):
        raise ConfigError("webhooks: expected a table, e.g. [webhooks] allow_private_targets = true")
    unknown = sorted(set(raw) - set(WebhookSettings.__dataclass_fields__))
    if unknown:
        raise ConfigError(f"webhooks: unknown setting {unknown[0]!r}")
    allow = raw.get("allow_private_targets", False)
    if isinstance(allow, str) and allow.lower() in ("true", "1", "yes", "false", "0", "no", ""):
        allow = allow.lower() in ("true", "1", "yes")
    if not isinstance(allow, bool):
        raise ConfigError("webhooks.allow_private_targets (PAYGATE_WEBHOOK_ALLOW_PRIVATE): expected true or false")
    try:
        timeout = float(str(raw.get("timeout_seconds", 10.0)))
    except ValueError:
        timeout = 0.0
    if not 0 < timeout <= 60:
        raise ConfigError("webhooks.timeout_seconds (PAYGATE_WEBHOOK_TIMEOUT_SECONDS): expected 0 to 60 seconds")
    return WebhookSettings(allow_private_targets=allow, timeout_seconds=timeout,
                           signature_headers=_signature_headers(raw.get("signature_headers")))


_HEADER_NAME = re.compile(r"[A-Za-z0-9!#$%&'*+.^_`|~-]+")  # an HTTP token (RFC 9110 §5.6.2)


def _signature_headers(raw: object) -> tuple[str, ...]:
    if raw is None:
        return WebhookSettings.signature_headers
    names = [x.strip() for x in raw.split(",")] if isinstance(raw, str) else raw
    if not isinstance(names, list) or not names or not all(isinstance(n, str) and _HEADER_NAME.fullmatch(n)
                                                           for n in names):
        raise ConfigError('webhooks.signature_headers (PAYGATE_WEBHOOK_SIGNATURE_HEADERS): expected a list of '
                          'HTTP header names, e.g. ["Paygate-Signature"]')
    # Header names are case-insensitive: a name given twice is sent once.
    return tuple({n.lower(): n for n in reversed(names)}[k] for k in dict.fromkeys(n.lower() for n in names))
