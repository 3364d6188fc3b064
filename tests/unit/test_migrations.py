"""The Alembic revisions and the SQLModel tables describe the same schema."""

from pathlib import Path

import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlmodel import SQLModel

import server.db.tables  # noqa: F401
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
