"""chains: watched addresses, transfers, cursors

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22 07:35:30.660461

Deploy compatibility: adds tables; old code ignores them. No lock on existing tables.
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel
import server.db.types


revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade() -> None:

    op.create_table('chain_transfers',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('network', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('tx_hash', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
    sa.Column('log_index', sa.Integer(), nullable=False),
    sa.Column('block_number', sa.BigInteger(), nullable=False),
    sa.Column('block_hash', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
    sa.Column('from_address', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
    sa.Column('to_address', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
    sa.Column('asset_id', sqlmodel.sql.sqltypes.AutoString(length=60), nullable=False),
    sa.Column('amount_base', server.db.types.DecimalText(), nullable=False),
    sa.Column('decimals', sa.Integer(), nullable=False),
    sa.Column('owner_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
    sa.Column('confirmations', sa.Integer(), nullable=False),
    sa.Column('aml_status', sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
    sa.Column('aml_info', sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False),
    sa.Column('created_at', sa.BigInteger(), nullable=False),
    sa.Column('updated_at', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('network', 'tx_hash', 'log_index', name='uq_chain_transfers_tx')
    )
    with op.batch_alter_table('chain_transfers', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_chain_transfers_owner_id'), ['owner_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_chain_transfers_to_address'), ['to_address'], unique=False)

    op.create_table('network_cursors',
    sa.Column('network', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('last_block', sa.BigInteger(), nullable=False),
    sa.Column('last_block_hash', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
    sa.Column('holder', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
    sa.Column('lease_until', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('network')
    )
    op.create_table('watched_addresses',
    sa.Column('network', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('address', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
    sa.Column('owner_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('merchant_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('livemode', sa.Boolean(), nullable=False),
    sa.Column('from_block', sa.BigInteger(), nullable=False),
    sa.Column('watch_until', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('network', 'address')
    )
    with op.batch_alter_table('watched_addresses', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_watched_addresses_owner_id'), ['owner_id'], unique=False)
        batch_op.create_index('ix_watched_network_until', ['network', 'watch_until'], unique=False)




def downgrade() -> None:

    with op.batch_alter_table('watched_addresses', schema=None) as batch_op:
        batch_op.drop_index('ix_watched_network_until')
        batch_op.drop_index(batch_op.f('ix_watched_addresses_owner_id'))

    op.drop_table('watched_addresses')
    op.drop_table('network_cursors')
    with op.batch_alter_table('chain_transfers', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_chain_transfers_to_address'))
        batch_op.drop_index(batch_op.f('ix_chain_transfers_owner_id'))

    op.drop_table('chain_transfers')

