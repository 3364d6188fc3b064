"""UTXO spends (DESIGN §18): every transaction the UTXO rail signs, with its bytes, the outputs it spends reserved by
outpoint, and one row per source address that locks and numbers its spends

Revision ID: 0039
Revises: 0038
Create Date: 2026-12-04 02:30:00.000000

Deploy compatibility: adds three new tables that old code never reads or writes. Old and new processes may run side
by side; an old process cannot pay out on a UTXO network (its rail had no payouts), so nothing of a spend is ever
half-kept by one.
"""
import sqlalchemy as sa
import sqlmodel
from alembic import op

import server.db.types

revision = '0039'
down_revision = '0038'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'utxo_sources',
        sa.Column('network', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column('address', sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column('next_sequence', sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint('network', 'address'),
    )
    op.create_table(
        'utxo_spends',
        sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=60), nullable=False),
        sa.Column('network', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column('source_address', sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column('payout_id', sqlmodel.sql.sqltypes.AutoString(length=60), nullable=False),
        sa.Column('txid', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column('raw', sa.Text(), nullable=False),
        sa.Column('value_base', server.db.types.DecimalText(), nullable=False),
        sa.Column('fee_base', server.db.types.DecimalText(), nullable=False),
        sa.Column('created_at', sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_utxo_spends_payout_id', 'utxo_spends', ['payout_id'], unique=False)
    op.create_index('ix_utxo_spends_txid', 'utxo_spends', ['txid'], unique=False)
    op.create_table(
        'utxo_reserved_inputs',
        sa.Column('network', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column('txid', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column('vout', sa.BigInteger(), nullable=False),
        sa.Column('spend_id', sqlmodel.sql.sqltypes.AutoString(length=60), nullable=False),
        sa.PrimaryKeyConstraint('network', 'txid', 'vout'),
    )
    op.create_index('ix_utxo_reserved_inputs_spend_id', 'utxo_reserved_inputs', ['spend_id'], unique=False)


def downgrade() -> None:
    op.drop_index('ix_utxo_reserved_inputs_spend_id', table_name='utxo_reserved_inputs')
    op.drop_table('utxo_reserved_inputs')
    op.drop_index('ix_utxo_spends_txid', table_name='utxo_spends')
    op.drop_index('ix_utxo_spends_payout_id', table_name='utxo_spends')
    op.drop_table('utxo_spends')
    op.drop_table('utxo_sources')
