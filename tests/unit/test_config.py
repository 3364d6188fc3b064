"""server/config.py: defaults, the TOML file, environment overrides and one-line errors (DESIGN.md §3)."""

from __future__ import annotations

import socket
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from server.config import DEFAULT_DATABASE_URL, ConfigError, live_mail_problem, load_settings, redact_url

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def empty_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory without paygate.toml or var/networks.dev.toml, so only the test's inputs count."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def one_line_error(env: dict[str, str]) -> str:
    with pytest.raises(ConfigError) as caught:
        load_settings(env)
    text = str(caught.value)
    assert text and "\n" not in text.strip(), text
    assert "Traceback" not in text
    return text


# ---------------------------------------------------------------- defaults


def test_default_database_url_is_sqlite_under_var():
    assert load_settings({}).database_url == DEFAULT_DATABASE_URL == "sqlite:///var/paygate.db"


def test_default_http_addr():
    assert load_settings({}).http_addr == "127.0.0.1:8000"


def test_default_grpc_addr():
    assert load_settings({}).grpc_addr == "127.0.0.1:50051"


def test_default_body_limit_is_one_mebibyte():
    assert load_settings({}).max_body_bytes == 1 << 20


def test_default_has_no_networks_file_when_the_dev_file_is_absent():
    assert load_settings({}).networks_file is None


def test_default_networks_file_is_the_dev_file_when_present(empty_cwd: Path):
    (empty_cwd / "var").mkdir()
    (empty_cwd / "var" / "networks.dev.toml").write_text("")
    assert load_settings({}).networks_file == Path("var/networks.dev.toml")


def test_default_checkout_url_is_empty_and_base_falls_back_to_http_addr():
    settings = load_settings({})
    assert settings.checkout_url == ""
    assert settings.checkout_base == "http://127.0.0.1:8000/checkout"


def test_default_tx_fee_percent_is_a_decimal():
    assert load_settings({}).tx_fee_percent == Decimal("1")


# ---------------------------------------------------------------- environment


def test_env_overrides_database_url():
    url = "postgresql://postgres@127.0.0.1:5432/paygate"
    assert load_settings({"PAYGATE_DATABASE_URL": url}).database_url == url


def test_env_overrides_http_addr():
    assert load_settings({"PAYGATE_HTTP_ADDR": "0.0.0.0:9000"}).http_addr == "0.0.0.0:9000"


def test_env_overrides_grpc_addr():
    assert load_settings({"PAYGATE_GRPC_ADDR": "127.0.0.1:6000"}).grpc_addr == "127.0.0.1:6000"


def test_env_overrides_checkout_url():
    settings = load_settings({"PAYGATE_CHECKOUT_URL": "https://pay.example.com/"})
    assert settings.checkout_url == "https://pay.example.com/"
    assert settings.checkout_base == "https://pay.example.com"


def test_env_sets_networks_file(empty_cwd: Path):
    path = empty_cwd / "nets.toml"
    path.write_text("")
    assert load_settings({"PAYGATE_NETWORKS": str(path)}).networks_file == path


def test_env_wallet_mnemonic_may_be_a_file_path(empty_cwd: Path):
    path = empty_cwd / "mnemonic.txt"
    path.write_text("test test test junk\n")
    assert load_settings({"PAYGATE_WALLET_MNEMONIC": str(path)}).wallet_mnemonic == "test test test junk"


def test_env_wallet_mnemonic_may_be_the_words():
    assert load_settings({"PAYGATE_WALLET_MNEMONIC": "abandon ability"}).wallet_mnemonic == "abandon ability"


def test_empty_env_value_does_not_override():
    assert load_settings({"PAYGATE_HTTP_ADDR": ""}).http_addr == "127.0.0.1:8000"


# ---------------------------------------------------------------- the TOML file


def test_paygate_toml_in_the_working_directory_is_read(empty_cwd: Path):
    (empty_cwd / "paygate.toml").write_text('http_addr = "127.0.0.1:8100"\n')
    assert load_settings({}).http_addr == "127.0.0.1:8100"


def test_paygate_config_names_the_file(empty_cwd: Path):
    path = empty_cwd / "other.toml"
    path.write_text('grpc_addr = "127.0.0.1:7000"\ntx_fee_percent = "0.5"\n')
    settings = load_settings({"PAYGATE_CONFIG": str(path)})
    assert settings.grpc_addr == "127.0.0.1:7000" and settings.tx_fee_percent == Decimal("0.5")


def test_env_wins_over_the_toml_file(empty_cwd: Path):
    (empty_cwd / "paygate.toml").write_text('http_addr = "127.0.0.1:8100"\n')
    assert load_settings({"PAYGATE_HTTP_ADDR": "127.0.0.1:8200"}).http_addr == "127.0.0.1:8200"


def test_toml_providers_list():
    path = Path("p.toml")
    path.write_text('providers = ["provider_a"]\n')
    assert load_settings({"PAYGATE_CONFIG": str(path)}).providers == frozenset({"provider_a"})


def test_log_level_is_case_insensitive(empty_cwd: Path):
    assert load_settings({"PAYGATE_LOG_LEVEL": "debug"}).log_level == "DEBUG"


# ---------------------------------------------------------------- errors, one line each


@pytest.mark.parametrize("addr", ["localhost", "127.0.0.1:", ":8000", "127.0.0.1:0", "127.0.0.1:70000",
                                  "127.0.0.1:http"])
def test_bad_http_addr_is_one_line_error(addr):
    assert "http_addr" in one_line_error({"PAYGATE_HTTP_ADDR": addr})


def test_bad_grpc_addr_is_one_line_error():
    assert "grpc_addr" in one_line_error({"PAYGATE_GRPC_ADDR": "nope"})


@pytest.mark.parametrize("url", ["mysql://u@h/db", "paygate.db", "http://x/y"])
def test_bad_database_url_is_one_line_error(url):
    assert "database_url" in one_line_error({"PAYGATE_DATABASE_URL": url})


def test_bad_checkout_url_is_one_line_error():
    assert "checkout_url" in one_line_error({"PAYGATE_CHECKOUT_URL": "ftp://pay.example.com"})


def test_missing_networks_file_is_one_line_error(empty_cwd: Path):
    assert "networks_file" in one_line_error({"PAYGATE_NETWORKS": str(empty_cwd / "absent.toml")})


def test_missing_config_file_is_one_line_error(empty_cwd: Path):
    assert "absent.toml" in one_line_error({"PAYGATE_CONFIG": str(empty_cwd / "absent.toml")})


def test_invalid_toml_is_one_line_error(empty_cwd: Path):
    path = empty_cwd / "bad.toml"
    path.write_text('http_addr = "127.0.0.1:8000\nbroken = \n')
    assert "not valid TOML" in one_line_error({"PAYGATE_CONFIG": str(path)})


def test_invalid_default_paygate_toml_is_one_line_error(empty_cwd: Path):
    (empty_cwd / "paygate.toml").write_text("[[[")
    assert "paygate.toml" in one_line_error({})


def test_unknown_setting_is_one_line_error_naming_it(empty_cwd: Path):
    path = empty_cwd / "typo.toml"
    path.write_text('htp_addr = "127.0.0.1:8000"\n')
    assert "htp_addr" in one_line_error({"PAYGATE_CONFIG": str(path)})


def test_tx_fee_percent_out_of_range_is_one_line_error(empty_cwd: Path):
    path = empty_cwd / "fee.toml"
    path.write_text('tx_fee_percent = "150"\n')
    assert "tx_fee_percent" in one_line_error({"PAYGATE_CONFIG": str(path)})


def test_non_numeric_body_limit_is_one_line_error(empty_cwd: Path):
    path = empty_cwd / "limit.toml"
    path.write_text('max_body_bytes = "a lot"\n')
    assert "max_body_bytes" in one_line_error({"PAYGATE_CONFIG": str(path)})


def test_bad_log_level_is_one_line_error():
    assert "log_level" in one_line_error({"PAYGATE_LOG_LEVEL": "loud"})


def test_providers_not_a_list_is_one_line_error(empty_cwd: Path):
    path = empty_cwd / "providers.toml"
    path.write_text('providers = "provider_a"\n')
    assert "providers" in one_line_error({"PAYGATE_CONFIG": str(path)})


def test_cli_stops_with_one_line_and_status_2_on_bad_configuration(empty_cwd: Path):
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "PAYGATE_HTTP_ADDR": "no-port-here"}
    done = subprocess.run([sys.executable, "-m", "server.boot.cli", "serve"], env=env, cwd=empty_cwd,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "http_addr" in lines[0], done.stderr


# ---------------------------------------------------------------- webhook_signature_headers (DESIGN §12)


def test_webhook_signature_headers_default_to_paygate_signature():
    assert load_settings({}).webhooks.signature_headers == ("Paygate-Signature",)


def test_webhook_signature_headers_from_the_environment_are_comma_separated():
    env = {"PAYGATE_WEBHOOK_SIGNATURE_HEADERS": "Paygate-Signature, X-Acme-Signature"}
    assert load_settings(env).webhooks.signature_headers == ("Paygate-Signature", "X-Acme-Signature")


def test_webhook_signature_headers_from_the_config_file(empty_cwd: Path):
    (empty_cwd / "paygate.toml").write_text('[webhooks]\nsignature_headers = ["Webhook-Signature"]\n')
    assert load_settings({}).webhooks.signature_headers == ("Webhook-Signature",)


def test_a_webhook_signature_header_that_is_not_a_header_name_stops_start_up():
    text = one_line_error({"PAYGATE_WEBHOOK_SIGNATURE_HEADERS": "Paygate-Signature,Bad Header"})
    assert text.startswith("webhooks.signature_headers")


def test_a_webhook_signature_header_named_twice_is_sent_once():
    env = {"PAYGATE_WEBHOOK_SIGNATURE_HEADERS": "Paygate-Signature,X-Sig,paygate-signature"}
    assert load_settings(env).webhooks.signature_headers == ("Paygate-Signature", "X-Sig")


# ---------------------------------------------------------------- the checkout page: mail, quotes, Stripe.js


def test_without_smtp_url_codes_are_written_under_var_mail():
    settings = load_settings({})
    assert settings.smtp_url == "" and settings.mail_dir == Path("var/mail")


def test_smtp_url_must_be_smtp_or_smtps():
    assert one_line_error({"PAYGATE_SMTP_URL": "http://mail.example"}).startswith("smtp_url")


def test_smtp_url_port_must_be_a_number():
    assert one_line_error({"PAYGATE_SMTP_URL": "smtp://mail.example:port"}).startswith("smtp_url")


def test_mail_from_must_hold_an_address():
    assert one_line_error({"PAYGATE_MAIL_FROM": "nobody"}).startswith("mail_from")


def test_codes_sent_are_capped_at_10_an_hour_per_client_ip_and_100_per_payment_link_by_default():
    settings = load_settings({})
    assert (settings.code_sends_per_ip_per_hour, settings.code_sends_per_link_per_hour) == (10, 100)


def test_the_caps_on_codes_sent_are_set_by_the_environment():
    settings = load_settings({"PAYGATE_CODE_SENDS_PER_IP_PER_HOUR": "20",
                              "PAYGATE_CODE_SENDS_PER_LINK_PER_HOUR": "500"})
    assert (settings.code_sends_per_ip_per_hour, settings.code_sends_per_link_per_hour) == (20, 500)


@pytest.mark.parametrize("name", ["CODE_SENDS_PER_IP_PER_HOUR", "CODE_SENDS_PER_LINK_PER_HOUR"])
@pytest.mark.parametrize("value", ["0", "-1", "ten", "1000001"])
def test_a_cap_on_codes_sent_is_a_whole_number_from_1(name, value):
    assert one_line_error({f"PAYGATE_{name}": value}).startswith(name.lower())


def test_card_attempts_are_capped_at_10_an_hour_per_client_ip_and_customer_3_declines_and_5_per_intent_by_default():
    settings = load_settings({})
    assert (settings.card_attempts_per_ip_per_hour, settings.card_attempts_per_customer_per_hour,
            settings.card_declines_per_hour, settings.card_attempts_per_intent) == (10, 10, 3, 5)


def test_the_caps_on_card_attempts_are_set_by_the_environment():
    settings = load_settings({"PAYGATE_CARD_ATTEMPTS_PER_IP_PER_HOUR": "20",
                              "PAYGATE_CARD_ATTEMPTS_PER_CUSTOMER_PER_HOUR": "30",
                              "PAYGATE_CARD_DECLINES_PER_HOUR": "4", "PAYGATE_CARD_ATTEMPTS_PER_INTENT": "6"})
    assert (settings.card_attempts_per_ip_per_hour, settings.card_attempts_per_customer_per_hour,
            settings.card_declines_per_hour, settings.card_attempts_per_intent) == (20, 30, 4, 6)


@pytest.mark.parametrize("name", ["CARD_ATTEMPTS_PER_IP_PER_HOUR", "CARD_ATTEMPTS_PER_CUSTOMER_PER_HOUR",
                                  "CARD_DECLINES_PER_HOUR", "CARD_ATTEMPTS_PER_INTENT"])
@pytest.mark.parametrize("value", ["0", "-1", "ten", "1000001"])
def test_a_cap_on_card_attempts_is_a_whole_number_from_1(name, value):
    assert one_line_error({f"PAYGATE_{name}": value}).startswith(name.lower())


def _serve(env: dict[str, str], cwd: Path, *roles: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "server.boot.cli", "serve", *roles], cwd=cwd, capture_output=True,
                          text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT),
                               "PAYGATE_DATABASE_URL": f"sqlite:///{cwd / 'p.db'}", **env})


LIVE_MNEMONIC = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"


@pytest.mark.parametrize("live", [{"PAYGATE_WALLET_MNEMONIC": LIVE_MNEMONIC},
                                  {"PAYGATE_SECRET_KEY": "k" * 32}], ids=["wallet_mnemonic", "secret_key"])
def test_a_live_deployment_refuses_to_serve_without_smtp_url_in_one_line(empty_cwd: Path, live):
    done = _serve(live, empty_cwd)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "smtp_url" in lines[0] and "live" in lines[0], done.stderr
    assert not (empty_cwd / "var" / "mail").exists()


def test_a_live_scheduler_refuses_to_serve_without_smtp_url(empty_cwd: Path):
    done = _serve({"PAYGATE_WALLET_MNEMONIC": LIVE_MNEMONIC}, empty_cwd, "--only", "scheduler")
    assert done.returncode == 2 and "smtp_url" in done.stderr, done.stderr


def test_a_live_facade_alone_sends_no_mail_and_needs_no_smtp_url():
    settings = load_settings({"PAYGATE_WALLET_MNEMONIC": LIVE_MNEMONIC})
    assert live_mail_problem(settings, {"http"}) is None
    assert live_mail_problem(settings, {"http", "grpc"}) is not None


def test_a_live_deployment_with_smtp_url_may_serve():
    settings = load_settings({"PAYGATE_WALLET_MNEMONIC": LIVE_MNEMONIC, "PAYGATE_SMTP_URL": "smtp://mail.example"})
    assert live_mail_problem(settings, {"http", "grpc", "scheduler"}) is None


def test_development_without_live_secrets_may_write_mail_files():
    assert live_mail_problem(load_settings({}), {"http", "grpc", "scheduler"}) is None


def test_phone_codes_are_off_without_an_sms_email_gateway():
    assert load_settings({}).sms_email_gateway == ""


def test_sms_email_gateway_is_a_domain_kept_in_lower_case():
    assert load_settings({"PAYGATE_SMS_EMAIL_GATEWAY": " SMS.Example.net "}).sms_email_gateway == "sms.example.net"


@pytest.mark.parametrize("value", ["localhost", "sms@example.net", "sms example.net", "sms.exämple.net",
                                   "https://sms.example.net", "sms.example.net."])
def test_sms_email_gateway_must_be_a_domain(value):
    assert one_line_error({"PAYGATE_SMS_EMAIL_GATEWAY": value}).startswith("sms_email_gateway")


def test_quote_seconds_defaults_to_thirty_minutes_and_is_bounded():
    assert load_settings({}).quote_seconds == 1800
    assert load_settings({"PAYGATE_QUOTE_SECONDS": "6"}).quote_seconds == 6
    assert one_line_error({"PAYGATE_QUOTE_SECONDS": "2"}).startswith("quote_seconds")
    assert one_line_error({"PAYGATE_QUOTE_SECONDS": "soon"}).startswith("quote_seconds")


def test_quote_grace_seconds_defaults_to_thirty_seconds_and_is_bounded():
    assert load_settings({}).quote_grace_seconds == 30
    assert load_settings({"PAYGATE_QUOTE_GRACE_SECONDS": "0"}).quote_grace_seconds == 0
    assert load_settings({"PAYGATE_QUOTE_GRACE_SECONDS": "600"}).quote_grace_seconds == 600
    for bad in ("3601", "-1", "soon", "٣٠"):
        assert one_line_error({"PAYGATE_QUOTE_GRACE_SECONDS": bad}).startswith("quote_grace_seconds"), bad


def test_checkout_hold_seconds_defaults_to_fifteen_minutes_and_is_bounded():
    assert load_settings({}).checkout_hold_seconds == 900
    assert load_settings({"PAYGATE_CHECKOUT_HOLD_SECONDS": "1"}).checkout_hold_seconds == 1
    assert load_settings({"PAYGATE_CHECKOUT_HOLD_SECONDS": "2592000"}).checkout_hold_seconds == 30 * 86_400
    for bad in ("0", "2592001", "-1", "soon", "\u0663\u0660"):  # Arabic-Indic 30
        assert one_line_error({"PAYGATE_CHECKOUT_HOLD_SECONDS": bad}).startswith("checkout_hold_seconds"), bad


def test_max_held_units_per_shopper_defaults_to_ten_and_is_bounded():
    assert load_settings({}).max_held_units_per_shopper == 10
    assert load_settings({"PAYGATE_MAX_HELD_UNITS_PER_SHOPPER": "1"}).max_held_units_per_shopper == 1
    assert load_settings({"PAYGATE_MAX_HELD_UNITS_PER_SHOPPER": "10000"}).max_held_units_per_shopper == 10_000
    for bad in ("0", "10001", "-1", "many", "\u0661\u0660"):  # Arabic-Indic 10
        assert one_line_error({"PAYGATE_MAX_HELD_UNITS_PER_SHOPPER": bad}).startswith(
            "max_held_units_per_shopper"), bad


def test_approval_expiry_seconds_defaults_to_seven_days_and_is_bounded():
    assert load_settings({}).approval_expiry_seconds == 7 * 86_400
    assert load_settings({"PAYGATE_APPROVAL_EXPIRY_SECONDS": "0"}).approval_expiry_seconds == 0  # never
    assert load_settings({"PAYGATE_APPROVAL_EXPIRY_SECONDS": "3600"}).approval_expiry_seconds == 3600
    for bad in (str(366 * 86_400 + 1), "-1", "a week", "٣٠"):
        assert one_line_error({"PAYGATE_APPROVAL_EXPIRY_SECONDS": bad}).startswith("approval_expiry_seconds"), bad


def test_quote_seconds_in_digits_other_than_ascii_are_refused_in_one_line():
    # int() reads full-width and Arabic-Indic digits; an operator's typo in them must not become a quote's lifetime.
    for bad in ("\uff16\uff10", "\u0666\u0660", "1_800", "+60"):  # full-width 60, Arabic-Indic 60
        assert one_line_error({"PAYGATE_QUOTE_SECONDS": bad}).startswith("quote_seconds"), bad


def test_stripe_js_comes_from_the_provider_api_base_when_it_is_set():
    assert load_settings({}).card_js_url == "https://js.stripe.com/v3/"
    assert load_settings({"PAYGATE_PROVIDER_A_API_BASE": "http://127.0.0.1:8420"}).card_js_url == \
        "http://127.0.0.1:8420/js.stripe.com/v3/"


# ---------------------------------------------------------------- the facade's channel


def test_the_facade_calls_the_servicers_in_process_by_default():
    assert load_settings({}).facade_channel == "in_process"


def test_the_facade_channel_is_taken_from_the_environment():
    assert load_settings({"PAYGATE_FACADE_CHANNEL": "grpc"}).facade_channel == "grpc"


def test_the_facade_channel_is_taken_from_the_file(empty_cwd: Path):
    (empty_cwd / "paygate.toml").write_text('facade_channel = "grpc"\n')
    assert load_settings({}).facade_channel == "grpc"


def test_an_unknown_facade_channel_is_one_line_naming_the_setting():
    assert "facade_channel" in one_line_error({"PAYGATE_FACADE_CHANNEL": "pigeon"})


def test_database_pool_size_defaults_to_ten_and_takes_a_whole_number_from_one_to_two_hundred():
    assert load_settings({}).database_pool_size == 10
    assert load_settings({"PAYGATE_DATABASE_POOL_SIZE": " 40 "}).database_pool_size == 40
    for bad in ("0", "201", "-3", "ten", "4.5", "\uff14\uff10", "\u0664"):  # full-width 40, Arabic-Indic 4
        assert one_line_error({"PAYGATE_DATABASE_POOL_SIZE": bad}).startswith("database_pool_size"), bad


def test_a_printed_database_url_hides_the_password_of_its_user() -> None:
    assert redact_url("postgresql://app:hunter2@db:5432/pay") == "postgresql://app:***@db:5432/pay"


def test_a_printed_database_url_hides_a_password_given_as_a_query_parameter() -> None:
    printed = redact_url("postgresql://app@db/pay?password=hunter2&sslmode=require")
    assert "hunter2" not in printed and "sslmode=require" in printed


def test_a_printed_sqlite_url_is_unchanged() -> None:
    assert redact_url("sqlite:///var/paygate.db") == "sqlite:///var/paygate.db"


def test_a_database_url_with_an_unknown_scheme_is_refused_without_its_password() -> None:
    with pytest.raises(ConfigError) as refused:
        load_settings({"PAYGATE_DATABASE_URL": "mysql://app:hunter2@db/pay"})
    assert "hunter2" not in str(refused.value) and "database_url" in str(refused.value)


def test_cli_stops_with_one_line_and_status_2_on_a_mnemonic_that_is_not_bip39(empty_cwd: Path):
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "PAYGATE_WALLET_MNEMONIC": "not a valid phrase at all"}
    done = subprocess.run([sys.executable, "-m", "server.boot.cli", "serve"], env=env, cwd=empty_cwd,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "wallet_mnemonic" in lines[0] and "not a valid phrase" not in lines[0], done.stderr


def test_cli_stops_with_one_line_when_the_http_port_is_in_use(empty_cwd: Path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "PAYGATE_HTTP_ADDR": f"127.0.0.1:{port}"}
        done = subprocess.run([sys.executable, "-m", "server.boot.cli", "serve", "--only", "http"], env=env,
                              cwd=empty_cwd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    problems = [line for line in done.stderr.splitlines() if "cannot listen" in line or "Traceback" in line
                or "never retrieved" in line]
    assert problems == [f"paygate: cannot listen for HTTP on 127.0.0.1:{port}: Address already in use"], done.stderr


# ---------------------------------------------------------------- job_seconds


def test_job_seconds_come_from_the_toml_table_or_the_environment_as_json(empty_cwd: Path) -> None:
    (empty_cwd / "paygate.toml").write_text("[job_seconds]\nwatch_chains = 1.5\nsend_sweeps = 2\n")
    assert load_settings({}).job_seconds == (("send_sweeps", 2.0), ("watch_chains", 1.5))
    assert load_settings({"PAYGATE_JOB_SECONDS": '{"send_refunds": 1}'}).job_seconds == (("send_refunds", 1.0),)


def test_no_job_seconds_keeps_every_jobs_default() -> None:
    assert load_settings({}).job_seconds == ()


@pytest.mark.parametrize("value", ['{"watch_chains": 0}', '{"watch_chains": 0.01}', '{"watch_chains": 90000}',
                                   '{"watch_chains": "1"}', '{"watch_chains": true}', '{"watch_chains": NaN}',
                                   '{"watch_chains": 1e999}'])
def test_job_seconds_outside_a_tenth_of_a_second_to_a_day_are_refused_naming_the_job(value: str) -> None:
    assert one_line_error({"PAYGATE_JOB_SECONDS": value}).startswith("job_seconds.watch_chains ")


@pytest.mark.parametrize("value", ["[1]", "watch_chains=1", '"1"'])
def test_job_seconds_that_are_not_a_mapping_are_refused(value: str) -> None:
    assert "expected a mapping of job name to seconds" in one_line_error({"PAYGATE_JOB_SECONDS": value})


def test_transaction_pooling_is_off_by_default_and_set_by_env():
    assert load_settings({}).database_transaction_pooling is False
    assert load_settings({"PAYGATE_DATABASE_TRANSACTION_POOLING": "true"}).database_transaction_pooling is True


# ---------------------------------------------------------------- slow clients (DESIGN §16)


def test_http_header_and_body_deadlines_default_to_ten_seconds():
    settings = load_settings({})
    assert settings.http_header_timeout_seconds == 10
    assert settings.http_body_timeout_seconds == 10


def test_http_max_connections_defaults_to_one_thousand():
    assert load_settings({}).http_max_connections == 1000


def test_http_slow_client_settings_come_from_the_environment():
    settings = load_settings({"PAYGATE_HTTP_HEADER_TIMEOUT_SECONDS": "2", "PAYGATE_HTTP_BODY_TIMEOUT_SECONDS": "30",
                              "PAYGATE_HTTP_MAX_CONNECTIONS": "5"})
    assert (settings.http_header_timeout_seconds, settings.http_body_timeout_seconds,
            settings.http_max_connections) == (2, 30, 5)


def test_http_max_connections_is_read_from_the_http_table_of_the_file(empty_cwd: Path):
    (empty_cwd / "paygate.toml").write_text("[http]\nmax_connections = 2000\nheader_timeout_seconds = 5\n")
    settings = load_settings({})
    assert settings.http_max_connections == 2000 and settings.http_header_timeout_seconds == 5


def test_http_deadlines_take_a_whole_number_of_seconds_from_one_to_six_hundred():
    for name in ("PAYGATE_HTTP_HEADER_TIMEOUT_SECONDS", "PAYGATE_HTTP_BODY_TIMEOUT_SECONDS"):
        assert load_settings({name: "600"}) and load_settings({name: "1"})
        for bad in ("0", "601", "-1", "2.5", "ten"):
            assert one_line_error({name: bad}).startswith(name.removeprefix("PAYGATE_").lower()), (name, bad)


def test_http_max_connections_takes_a_whole_number_from_one_to_one_hundred_thousand():
    assert load_settings({"PAYGATE_HTTP_MAX_CONNECTIONS": "100000"}).http_max_connections == 100_000
    for bad in ("0", "100001", "-5", "many", "1e3"):
        assert one_line_error({"PAYGATE_HTTP_MAX_CONNECTIONS": bad}).startswith("http_max_connections"), bad
