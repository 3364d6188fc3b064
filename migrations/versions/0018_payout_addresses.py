"""payout addresses and treasury transfers

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-23 06:45:00.000000

Deploy compatibility: adds two tables (merchant_addresses, treasury_transfers); old code ignores them.
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel
import server.db.types

revision = '0018'
down_revision = '0017'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('merchant_addresses',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('merchant_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('livemode', sa.Boolean(), nullable=False),
    sa.Column('network', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('address', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
    sa.Column('alias', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=24), nullable=False),
    sa.Column('verification_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('verification_status', sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
    sa.Column('verification_asset_id', sqlmodel.sql.sqltypes.AutoString(length=60), nullable=False),
    sa.Column('verification_amount', server.db.types.DecimalText(), nullable=False),
    sa.Column('tried_times', sa.Integer(), nullable=False),
    sa.Column('verified_at', sa.BigInteger(), nullable=False),
    sa.Column('aml_status', sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
    sa.Column('aml_info', sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False),
    sa.Column('deleted_at', sa.BigInteger(), nullable=False),
    sa.Column('created_at', sa.BigInteger(), nullable=False),
    sa.Column('updated_at', sa.BigInteger(), nullable=False),
    sa.Column('sort_key', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index('ix_merchant_addresses_scope_newest', 'merchant_addresses', ['merchant_id', 'livemode', 'sort_key'])
    op.create_index('ix_merchant_addresses_verification', 'merchant_addresses', ['verification_status'])
    op.create_table('treasury_transfers',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('owner_kind', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('owner_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('merchant_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('livemode', sa.Boolean(), nullable=False),
    sa.Column('network', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('asset_id', sqlmodel.sql.sqltypes.AutoString(length=60), nullable=False),
    sa.Column('source_address', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
    sa.Column('destination_address', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
    sa.Column('nonce', sa.BigInteger(), nullable=False),
    sa.Column('tx_hash', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
    sa.Column('raw', sa.Text(), nullable=False),
    sa.Column('amount_base', server.db.types.DecimalText(), nullable=False),
    sa.Column('fee_wei', server.db.types.DecimalText(), nullable=False),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
    sa.Column('created_at', sa.BigInteger(), nullable=False),
    sa.Column('updated_at', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index('ix_treasury_transfers_open', 'treasury_transfers', ['status', 'network', 'source_address'])
    op.create_index('ix_treasury_transfers_owner', 'treasury_transfers', ['owner_kind', 'owner_id'])


def downgrade() -> None:
    op.drop_index('ix_treasury_transfers_owner', table_name='treasury_transfers')
    op.drop_index('ix_treasury_transfers_open', table_name='treasury_transfers')
    op.drop_table('treasury_transfers')
    op.drop_index('ix_merchant_addresses_verification', table_name='merchant_addresses')
    op.drop_index('ix_merchant_addresses_scope_newest', table_name='merchant_addresses')
    op.drop_table('merchant_addresses')
