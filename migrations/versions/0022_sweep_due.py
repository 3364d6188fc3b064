"""places the sweep job should look at (sweep_due), so a pass never scans the whole ledger

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-28 10:00:00.000000

Deploy compatibility: adds one table; old code ignores it (and keeps scanning the ledger). The upgrade names every
place the ledger holds available funds or fees at (one row per merchant, mode, network, address and asset), so money
already waiting on deposit addresses is looked at on the first pass of the new code, which deletes what is dust.
"""
import secrets
import string

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = '0022'
down_revision = '0021'
branch_labels = None
depends_on = None

ALPHABET = string.digits + string.ascii_letters


def _id() -> str:
    return "sd_" + "".join(secrets.choice(ALPHABET) for _ in range(24))


def upgrade() -> None:
    table = op.create_table('sweep_due',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('merchant_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('livemode', sa.Boolean(), nullable=False),
    sa.Column('network', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('address', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
    sa.Column('asset_id', sqlmodel.sql.sqltypes.AutoString(length=60), nullable=False),
    sa.Column('created_at', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    places = op.get_bind().execute(sa.text(
        "SELECT DISTINCT merchant_id, livemode, network, address, asset_id FROM ledger_entries "
        "WHERE address <> '' AND account IN ('available', 'fees')")).all()
    if places:
        op.bulk_insert(table, [{"id": _id(), "merchant_id": m, "livemode": bool(live), "network": n, "address": a,
                                "asset_id": asset, "created_at": 0} for m, live, n, a, asset in places])


def downgrade() -> None:
    op.drop_table('sweep_due')
