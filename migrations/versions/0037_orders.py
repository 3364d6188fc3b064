"""orders (DESIGN §17): what a payment link purchase bought, one row per intent that succeeded

Revision ID: 0037
Revises: 0036
Create Date: 2026-12-03 02:00:00.000000

Deploy compatibility: adds one new table that old code never reads or writes, so old and new processes may run side
by side. Orders are made from new successes only: intents that succeeded before this revision have none (no
backfill). Creating the table and its indexes takes no lock on any existing table beyond the foreign keys' brief
SHARE ROW EXCLUSIVE on `merchants` and `payment_intents` (PostgreSQL), which waits for open writes to them.
"""
import sqlalchemy as sa
import sqlmodel

import server.db.types
from sqlalchemy.dialects import postgresql
from alembic import op

revision = '0037'
down_revision = '0036'
branch_labels = None
depends_on = None


def _json() -> sa.types.TypeEngine:
    return sa.JSON().with_variant(postgresql.JSONB(), 'postgresql')


def upgrade() -> None:
    op.create_table(
        'orders',
        sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column('merchant_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column('livemode', sa.Boolean(), nullable=False),
        sa.Column('payment_intent_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column('payment_link_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column('external_id', sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
        sa.Column('customer', _json(), nullable=True),
        sa.Column('shipping_address', _json(), nullable=True),
        sa.Column('product', _json(), nullable=False),
        sa.Column('items', _json(), nullable=False),
        sa.Column('total', server.db.types.DecimalText(), nullable=False),
        sa.Column('currency', sqlmodel.sql.sqltypes.AutoString(length=60), nullable=False),
        sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column('payment_method', sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column('created_at', sa.BigInteger(), nullable=False),
        sa.Column('updated_at', sa.BigInteger(), nullable=False),
        sa.Column('sort_key', sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(['merchant_id'], ['merchants.id']),
        sa.ForeignKeyConstraint(['payment_intent_id'], ['payment_intents.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('payment_intent_id'),
    )
    op.create_index('ix_orders_scope_newest', 'orders', ['merchant_id', 'livemode', 'sort_key'])


def downgrade() -> None:
    op.drop_index('ix_orders_scope_newest', table_name='orders')
    op.drop_table('orders')
