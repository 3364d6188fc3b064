"""The Alembic revisions and the SQLModel tables describe the same schema."""

from decimal import Decimal
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlmodel import SQLModel

import migrations.tables  # noqa: F401  (fills the metadata)
from server.db import migrate


def test_migrations_reach_the_schema_the_models_declare(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    migrate.upgrade(url)
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), SQLModel.metadata)
    engine.dispose()
    assert diff == []


def test_a_fresh_database_is_at_the_head_revision(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    migrate.upgrade(url)
    assert migrate.current_revision(url) == migrate.head_revision()


def _ledger_leg(conn: sa.Connection, account: str, address: str, asset: str = "ETH-TEST") -> None:
    count = conn.execute(sa.text("SELECT count(*) FROM ledger_entries")).scalar_one()
    conn.execute(sa.text(
        "INSERT INTO ledger_entries (id, posting_id, merchant_id, livemode, asset_id, account, network, address, "
        "amount, cause_type, cause_id, created_at, sort_key) VALUES (:id, 'lp_1', 'mch_1', false, :asset, :account, "
        "'ETH-TEST', :address, '1.5', 'transfer', 'tr_1', 1, 1)"),
        {"id": f"le_{count}", "account": account, "address": address, "asset": asset})


def test_migration_0022_names_every_place_the_ledger_holds_available_funds_or_fees(tmp_path: Path) -> None:
    """Money already on deposit addresses before the sweep_due table is looked at on the new code's first pass."""
    url = f"sqlite:///{tmp_path / 'm.db'}"
    migrate.upgrade(url, "0021")
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        _ledger_leg(conn, "available", "0xaaa")
        _ledger_leg(conn, "available", "0xaaa")  # a second leg at the same place: one row
        _ledger_leg(conn, "fees", "0xbbb")
        _ledger_leg(conn, "available", "0xaaa", asset="USDC-TEST")
        _ledger_leg(conn, "pending", "0xccc")  # not swept: not yet available
        _ledger_leg(conn, "available", "")  # the world outside: no address to sweep
    migrate.upgrade(url)
    with engine.connect() as conn:
        places = conn.execute(sa.text("SELECT address, asset_id FROM sweep_due ORDER BY address, asset_id")).all()
    engine.dispose()
    assert [tuple(p) for p in places] == [("0xaaa", "ETH-TEST"), ("0xaaa", "USDC-TEST"), ("0xbbb", "ETH-TEST")]


def _intent(conn: sa.Connection, intent_id: str, status: str, snapshot: str | None) -> None:
    """A payment intent row as revision 0026 stores it, with only what its columns require."""
    columns = {"id": intent_id, "merchant_id": "mch_1", "livemode": False, "amount": "10", "currency": "USD",
               "description": "", "metadata": "{}", "merchant_order_id": "", "payment_method_type": "",
               "receipt_email": "", "return_url": "", "status": status, "complete_on_first_payment": False,
               "permanent_deposit": False, "permanent_deposit_asset_id": "", "expired_at": 10**10, "canceled_at": 0,
               "cancellation_reason": "", "paid_asset_id": "", "amount_captured": "0", "amount_refunded": "0",
               "tx_fee": "0", "tax_fee": "0", "frozen_amount": "0", "net_amount": "0", "network_fee": "0",
               "amount_overpaid": "0", "amount_received_late": "0", "created": 1, "sort_key": 1, "updated": 1,
               "link_snapshot": snapshot, "payment_link_id": "plink_1" if snapshot else None}
    _insert(conn, "payment_intents", columns)


def _insert(conn: sa.Connection, table: str, columns: dict[str, object]) -> None:
    names = ", ".join(columns)
    conn.execute(sa.text(f"INSERT INTO {table} ({names}) VALUES ({', '.join(':' + n for n in columns)})"), columns)


def test_migration_0027_names_the_product_of_every_link_purchase_that_still_holds_stock(tmp_path: Path) -> None:
    """Open purchases made before it hold their units on the new code's first checkout."""
    url = f"sqlite:///{tmp_path / 'm.db'}"
    migrate.upgrade(url, "0026")
    engine = sa.create_engine(url)
    bought = '{"product": {"id": "prod_1"}, "items": [{"variant_id": "var_1", "quantity": 1}]}'
    with engine.begin() as conn:
        _intent(conn, "pi_open", "RequiresPaymentMethod", bought)
        _intent(conn, "pi_partly_paid", "PartialPaid", bought)
        _intent(conn, "pi_ended", "Canceled", bought)  # holds nothing any more: left alone
        _intent(conn, "pi_not_a_purchase", "RequiresPaymentMethod", None)
    migrate.upgrade(url)
    with engine.connect() as conn:
        found = dict(conn.execute(sa.text("SELECT id, link_product_id FROM payment_intents")).all())
    engine.dispose()
    assert found == {"pi_open": "prod_1", "pi_partly_paid": "prod_1", "pi_ended": None, "pi_not_a_purchase": None}


def test_migration_0028_leaves_room_on_postgresql_delivery_pages_for_updated_rows(tmp_path: Path) -> None:
    """A claim's lease update stays on the row's page (HOT) rather than adding an entry to every index."""
    from tests.harness import create_database, drop_database

    url = create_database("postgresql", tmp_path)
    try:
        migrate.upgrade(url, "0027")
        migrate.upgrade(url)
        engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
        with engine.connect() as conn:
            options = conn.execute(sa.text("SELECT reloptions FROM pg_class WHERE relname = 'event_deliveries'"))
            assert options.scalar_one() == ["fillfactor=70"]
        engine.dispose()
    finally:
        drop_database(url)


def _insert_charge_as_old_code_does(conn: sa.Connection, charge_id: str) -> None:
    """A charge row naming every column but `quote_grace_seconds` (dummy values: only that column is looked at)."""
    values: dict[str, object] = {}
    for column in sa.inspect(conn).get_columns("charges"):
        if column["name"] != "quote_grace_seconds":
            values[column["name"]] = 0 if isinstance(column["type"], (sa.Integer, sa.Numeric, sa.Boolean)) else "x"
    values["id"] = charge_id
    _insert(conn, "charges", values)


def test_migration_0029_keeps_the_30_s_grace_of_charges_opened_before_it_and_by_old_code(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    migrate.upgrade(url, "0028")
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        _insert_charge_as_old_code_does(conn, "ch_before")
    migrate.upgrade(url)
    with engine.begin() as conn:
        _insert_charge_as_old_code_does(conn, "ch_old_code")  # a process not yet deployed, during a rolling deploy
        found = dict(conn.execute(sa.text("SELECT id, quote_grace_seconds FROM charges")).all())
    engine.dispose()
    assert found == {"ch_before": 30, "ch_old_code": 30}


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_migration_0031_keeps_the_approvals_merchants_chose_before_it_in_both_modes(kind: str, tmp_path: Path) -> None:
    """A merchant that had set approvals keeps them in test and live mode; one at 0 (never set, as far as anyone can
    tell) gets the new default: no choice on record."""
    from tests.harness import create_database, drop_database

    url = f"sqlite:///{tmp_path / 'm.db'}" if kind == "sqlite" else create_database("postgresql", tmp_path)
    try:
        migrate.upgrade(url, "0030")
        engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
        with engine.begin() as conn:
            for merchant_id, approvals, threshold in (("mch_chose", 2, "100"), ("mch_never", 0, "0")):
                _insert(conn, "merchants", {"id": merchant_id, "name": "Shop", "created": 1,
                                            "payout_approvals_required": approvals,
                                            "payout_approval_threshold": threshold})
        migrate.upgrade(url)
        with engine.connect() as conn:
            found = conn.execute(sa.text("SELECT merchant_id, livemode, approvals_required, threshold, actor "
                                         "FROM approval_settings ORDER BY livemode")).all()
        engine.dispose()
        assert [(m, bool(live), n, Decimal(str(at)), actor) for m, live, n, at, actor in found] == [
            ("mch_chose", False, 2, Decimal(100), "migration"), ("mch_chose", True, 2, Decimal(100), "migration")]
    finally:
        if kind == "postgresql":
            drop_database(url)


def _address(conn: sa.Connection, address_id: str, livemode: bool, status: str) -> None:
    """A payout address row as code before 0032 writes it (no proof, approval or wait columns)."""
    _insert(conn, "merchant_addresses", {
        "id": address_id, "merchant_id": "mch_1", "livemode": livemode, "network": "ETH", "address": "0x" + "ab" * 20,
        "alias": "", "status": status, "verification_id": "mav_" + address_id, "verification_status": "sent",
        "verification_asset_id": "ETH-ETH", "verification_amount": "0.0000001234", "tried_times": 0,
        "verified_at": 0, "aml_status": "approved", "aml_info": "", "deleted_at": 0, "created_at": 1,
        "updated_at": 1, "sort_key": 1})


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_migration_0032_keeps_verified_addresses_usable_and_gives_waiting_ones_a_nonce_and_live_ones_an_approver(
        kind: str, tmp_path: Path) -> None:
    from tests.harness import create_database, drop_database

    url = f"sqlite:///{tmp_path / 'm.db'}" if kind == "sqlite" else create_database("postgresql", tmp_path)
    try:
        migrate.upgrade(url, "0031")
        engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
        with engine.begin() as conn:
            for address_id, live, status in (("ma_done", True, "verified"), ("ma_live", True, "pending_verification"),
                                             ("ma_test", False, "pending_verification")):
                _address(conn, address_id, live, status)
        migrate.upgrade(url)
        with engine.begin() as conn:
            _address(conn, "ma_old_code", False, "pending_verification")  # during a rolling deploy
            found = {r[0]: r[1:] for r in conn.execute(sa.text(
                "SELECT id, status, proof_method, approval_status, approvals_required, length(verification_nonce), "
                "usable_from FROM merchant_addresses"))}
        engine.dispose()
        assert found == {"ma_done": ("verified", "micro_deposit", "not_required", 0, 0, 0),
                         "ma_live": ("pending_verification", "", "pending", 1, 32, 0),
                         "ma_test": ("pending_verification", "", "not_required", 0, 32, 0),
                         "ma_old_code": ("pending_verification", "", "not_required", 0, 0, 0)}
    finally:
        if kind == "postgresql":
            drop_database(url)
