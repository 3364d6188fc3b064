"""The composition root (server/boot/composition.py): a runtime is built explicitly, each package registers into it,
and nothing it holds is shared between two runtimes through a module."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from server.boot.composition import build_runtime, compose
from server.chains.hooks import listeners
from server.config import ConfigError, Settings, load_settings
from server.customers import wiring as customers_wiring
from server.events.outbox import EVENT_RECORDED
from server.orders import service as orders
from server.payment_intents import chain_listener
from server.payment_intents import wiring as payment_intents_wiring
from server.runtime import Runtime
from server.subscriptions.lifecycle import on_event
from server.treasury import wiring as treasury_wiring
from server.treasury.ledger import listeners as treasury_listeners
from server.webhooks.queue import fan_out
from tests.harness import TEST_NETWORKS


def build_settings(workdir: Path, **env: str) -> Settings:
    workdir.mkdir(parents=True, exist_ok=True)
    networks = workdir / "networks.toml"
    networks.write_text(TEST_NETWORKS)
    return load_settings({"PAYGATE_DATABASE_URL": f"sqlite:///{workdir / 'p.db'}", "PAYGATE_NETWORKS": str(networks),
                          **env})


def build(workdir: Path, **env: str) -> Runtime:
    return compose(build_settings(workdir, **env), var_dir=workdir / "var")


def close(*runtimes: Runtime) -> None:
    for rt in runtimes:
        asyncio.run(rt.db.close())


def test_compose_registers_each_packages_jobs_once(tmp_path: Path) -> None:
    rt = build(tmp_path)
    try:
        assert sorted(job.name for job in rt.jobs) == [
            "deliver_webhooks", "expire_approvals", "expire_payment_intents", "purge_lapsed", "reconcile_treasury",
            "recover_card_payments", "renew_subscriptions",
            "retry_card_refunds", "send_refunds", "send_sweeps", "send_treasury_transfers", "watch_chains"]
    finally:
        close(rt)


def test_a_jobs_configured_seconds_replace_its_default_and_the_others_keep_theirs(tmp_path: Path) -> None:
    plain, rt = build(tmp_path / "default"), build(tmp_path / "set", PAYGATE_JOB_SECONDS='{"watch_chains": 0.5}')
    try:
        default, seconds = ({job.name: job.seconds for job in r.jobs} for r in (plain, rt))
        assert seconds["watch_chains"] == 0.5 != default["watch_chains"]
        assert {n: s for n, s in seconds.items() if n != "watch_chains"} == {
            n: s for n, s in default.items() if n != "watch_chains"}
    finally:
        close(plain, rt)


def test_seconds_for_a_job_that_does_not_exist_stop_the_start_with_the_names_of_those_that_do(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"job_seconds\.watch_chain: no such scheduler job; .*watch_chains"):
        build(tmp_path, PAYGATE_JOB_SECONDS='{"watch_chain": 1}')


def test_compose_subscribes_the_webhook_fan_out_and_the_subscription_lifecycle_to_the_outbox(tmp_path: Path) -> None:
    rt = build(tmp_path)
    try:
        *others, ledger = rt.db.hooks.of(EVENT_RECORDED)
        assert tuple(others) == (fan_out, on_event, orders.on_event)
        assert ledger.func is treasury_listeners.on_event and ledger.args == (rt,)  # type: ignore[attr-defined]
    finally:
        close(rt)


def test_each_runtimes_transfer_listener_settles_with_that_runtime(tmp_path: Path) -> None:
    first, second = build(tmp_path / "a"), build(tmp_path / "b")
    try:
        # The payments' listener, then the treasury ledger's: each bound to its own runtime.
        (one, ledger_one), (two, ledger_two) = listeners(first.db), listeners(second.db)
        assert one.args == (first,) and two.args == (second,)  # type: ignore[attr-defined]
        assert ledger_one.args == (first,) and ledger_two.args == (second,)  # type: ignore[attr-defined]
    finally:
        close(first, second)


def test_a_runtime_built_without_composition_has_no_listeners_nor_jobs(tmp_path: Path) -> None:
    rt = build_runtime(load_settings({"PAYGATE_DATABASE_URL": f"sqlite:///{tmp_path / 'p.db'}"}),
                       var_dir=tmp_path / "var")
    try:
        assert rt.jobs == [] and listeners(rt.db) == () and rt.db.hooks.of(EVENT_RECORDED) == ()
    finally:
        close(rt)


def test_only_the_composition_root_imports_the_http_facade() -> None:
    # Issue 9, seam 3: the core knows no HTTP; `grep -rn gateway_http server/` finds only the composition root.
    server = Path(__file__).resolve().parents[3] / "server"
    importers = sorted(str(p.relative_to(server.parent)) for p in server.rglob("*.py")
                       if "gateway_http" in p.read_text())
    assert importers == ["server/boot/composition.py"]


def test_compose_registers_the_servicer_of_each_of_the_19_services(tmp_path: Path) -> None:
    rt = build(tmp_path)
    try:
        assert sorted(rt.servicers) == [f"paygate.v1.{name}Service" for name in (
            "Address", "Asset", "Checkout", "Customer", "Event", "Invoice", "Merchant", "Order", "PaymentIntent",
            "PaymentLink", "Payout", "Payroll", "Product", "ProviderWebhook", "Refund", "SellingPlan", "Subscription",
            "Treasury", "WebhookEndpoint")]
    finally:
        close(rt)


def test_a_service_registered_by_two_packages_is_refused(tmp_path: Path) -> None:
    rt = build(tmp_path)
    try:
        with pytest.raises(ValueError, match=r"^paygate.v1.CustomerService is registered twice$"):
            customers_wiring.register(rt)
    finally:
        close(rt)


def test_a_transfer_is_attributed_before_the_ledger_posts_it_whatever_order_the_packages_register_in(
        tmp_path: Path) -> None:
    rt = build_runtime(build_settings(tmp_path), var_dir=tmp_path / "var")
    try:
        treasury_wiring.register(rt)  # the ledger's package first: the stages, not this order, decide
        payment_intents_wiring.register(rt)
        attribute, post = listeners(rt.db)
        assert attribute.func is chain_listener.on_transfer_changed  # type: ignore[attr-defined]
        assert post.func is treasury_listeners.on_transfer_changed  # type: ignore[attr-defined]
    finally:
        close(rt)
