"""treasury ledger

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-23 06:20:00.000000

Deploy compatibility: adds one table (ledger_entries); old code ignores it. No lock on existing tables.
Money received before this revision is not in the ledger (balances start at this deploy).
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel
import server.db.types

revision = '0016'
down_revision = '0015'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('ledger_entries',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('posting_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('merchant_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('livemode', sa.Boolean(), nullable=False),
    sa.Column('asset_id', sqlmodel.sql.sqltypes.AutoString(length=60), nullable=False),
    sa.Column('account', sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
    sa.Column('network', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('address', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
    sa.Column('amount', server.db.types.DecimalText(), nullable=False),
    sa.Column('cause_type', sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
    sa.Column('cause_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('created_at', sa.BigInteger(), nullable=False),
    sa.Column('sort_key', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index('ix_ledger_scope', 'ledger_entries', ['merchant_id', 'livemode', 'asset_id', 'account'])
    op.create_index('ix_ledger_cause', 'ledger_entries', ['cause_type', 'cause_id'])
    op.create_index('ix_ledger_holder', 'ledger_entries', ['network', 'address', 'asset_id'])
    op.create_index(op.f('ix_ledger_entries_posting_id'), 'ledger_entries', ['posting_id'])


def downgrade() -> None:
    op.drop_index(op.f('ix_ledger_entries_posting_id'), table_name='ledger_entries')
    op.drop_index('ix_ledger_holder', table_name='ledger_entries')
    op.drop_index('ix_ledger_cause', table_name='ledger_entries')
    op.drop_index('ix_ledger_scope', table_name='ledger_entries')
    op.drop_table('ledger_entries')
