"""payouts

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-23 07:00:00.000000

Deploy compatibility: adds one table (payouts); old code ignores it.
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel
import server.db.types
from sqlalchemy.dialects import postgresql

revision = '0019'
down_revision = '0018'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('payouts',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('merchant_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('livemode', sa.Boolean(), nullable=False),
    sa.Column('asset_id', sqlmodel.sql.sqltypes.AutoString(length=60), nullable=False),
    sa.Column('network', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('decimals', sa.Integer(), nullable=False),
    sa.Column('amount', server.db.types.DecimalText(), nullable=False),
    sa.Column('network_fee', server.db.types.DecimalText(), nullable=False),
    sa.Column('merchant_address_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('address', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
    sa.Column('approval_status', sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
    sa.Column('failure_reason', sqlmodel.sql.sqltypes.AutoString(length=60), nullable=False),
    sa.Column('external_id', sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
    sa.Column('metadata', sa.JSON().with_variant(postgresql.JSONB(), 'postgresql'), nullable=False),
    sa.Column('internal_note', sqlmodel.sql.sqltypes.AutoString(length=1000), nullable=False),
    sa.Column('statement_descriptor', sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
    sa.Column('tx_hash', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
    sa.Column('created', sa.BigInteger(), nullable=False),
    sa.Column('updated', sa.BigInteger(), nullable=False),
    sa.Column('sort_key', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index('ix_payouts_scope_newest', 'payouts', ['merchant_id', 'livemode', 'sort_key'])
    op.create_index('ix_payouts_status', 'payouts', ['status'])


def downgrade() -> None:
    op.drop_index('ix_payouts_status', table_name='payouts')
    op.drop_index('ix_payouts_scope_newest', table_name='payouts')
    op.drop_table('payouts')
