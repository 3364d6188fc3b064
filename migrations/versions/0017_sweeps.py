"""sweeps into the treasury

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-23 06:30:00.000000

Deploy compatibility: adds two tables (sweeps, sweep_transactions); old code ignores them. Drops the foreign key of
treasury_signed_transactions.refund_transaction_id (a signed transaction now belongs to a refund or a sweep
transaction); old code writes only refund transaction ids there, which stay valid. SQLite rebuilds that table (batch).
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel
import server.db.types

revision = '0017'
down_revision = '0016'
branch_labels = None
depends_on = None

FK_PG = 'treasury_signed_transactions_refund_transaction_id_fkey'
FK_SQLITE = 'fk_treasury_signed_transactions_refund_transaction_id_refund_transactions'
NAMING = {"fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s"}


def upgrade() -> None:
    if op.get_bind().dialect.name == 'postgresql':
        op.drop_constraint(FK_PG, 'treasury_signed_transactions', type_='foreignkey')
    else:
        with op.batch_alter_table('treasury_signed_transactions', naming_convention=NAMING) as batch:
            batch.drop_constraint(FK_SQLITE, type_='foreignkey')
    op.create_table('sweeps',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('merchant_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('livemode', sa.Boolean(), nullable=False),
    sa.Column('network', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('asset_id', sqlmodel.sql.sqltypes.AutoString(length=60), nullable=False),
    sa.Column('decimals', sa.Integer(), nullable=False),
    sa.Column('source_address', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
    sa.Column('destination_address', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
    sa.Column('amount', server.db.types.DecimalText(), nullable=False),
    sa.Column('fee_amount', server.db.types.DecimalText(), nullable=False),
    sa.Column('network_fee', server.db.types.DecimalText(), nullable=False),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
    sa.Column('failure_reason', sqlmodel.sql.sqltypes.AutoString(length=60), nullable=False),
    sa.Column('last_error', sqlmodel.sql.sqltypes.AutoString(length=60), nullable=False),
    sa.Column('tx_hash', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
    sa.Column('created', sa.BigInteger(), nullable=False),
    sa.Column('updated', sa.BigInteger(), nullable=False),
    sa.Column('sort_key', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index('ix_sweeps_scope_newest', 'sweeps', ['merchant_id', 'livemode', 'sort_key'])
    op.create_index('ix_sweeps_open', 'sweeps', ['status', 'network', 'source_address', 'asset_id'])
    op.create_table('sweep_transactions',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('sweep_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False),
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
    sa.ForeignKeyConstraint(['sweep_id'], ['sweeps.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index(op.f('ix_sweep_transactions_sweep_id'), 'sweep_transactions', ['sweep_id'])
    op.create_index('ix_sweep_transactions_open', 'sweep_transactions', ['status', 'network', 'source_address'])


def downgrade() -> None:
    op.drop_index('ix_sweep_transactions_open', table_name='sweep_transactions')
    op.drop_index(op.f('ix_sweep_transactions_sweep_id'), table_name='sweep_transactions')
    op.drop_table('sweep_transactions')
    op.drop_index('ix_sweeps_open', table_name='sweeps')
    op.drop_index('ix_sweeps_scope_newest', table_name='sweeps')
    op.drop_table('sweeps')
    with op.batch_alter_table('treasury_signed_transactions') as batch:
        batch.create_foreign_key(None, 'refund_transactions', ['refund_transaction_id'], ['id'])
