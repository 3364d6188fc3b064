"""payrolls (DESIGN §17): batches of payouts, one payout per item (`payouts.payroll_id`)

Revision ID: 0038
Revises: 0037
Create Date: 2026-12-03 13:00:00.000000

Deploy compatibility: adds two new tables that old code never reads or writes, and one nullable column on `payouts`
that old code neither reads nor writes (a payout it makes has none: it is no payroll's). Old and new processes may run
side by side. Adding a nullable column without a default is a catalogue-only change on PostgreSQL (a brief ACCESS
EXCLUSIVE lock on `payouts`, no rewrite); its index is built with the table locked against writes (payouts are few).
"""
import sqlalchemy as sa
import sqlmodel

import server.db.types
from alembic import op

revision = '0038'
down_revision = '0037'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'payrolls',
        sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column('merchant_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column('livemode', sa.Boolean(), nullable=False),
        sa.Column('external_id', sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
        sa.Column('asset_id', sqlmodel.sql.sqltypes.AutoString(length=60), nullable=False),
        sa.Column('network', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column('total_amount', server.db.types.DecimalText(), nullable=False),
        sa.Column('item_count', sa.Integer(), nullable=False),
        sa.Column('created_by_key', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column('confirmed_at', sa.BigInteger(), nullable=False),
        sa.Column('confirmed_by_key', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column('approvals_required', sa.Integer(), nullable=False),
        sa.Column('created_at', sa.BigInteger(), nullable=False),
        sa.Column('updated_at', sa.BigInteger(), nullable=False),
        sa.Column('sort_key', sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(['merchant_id'], ['merchants.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_payrolls_scope_newest', 'payrolls', ['merchant_id', 'livemode', 'sort_key'])
    op.create_table(
        'payroll_items',
        sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column('payroll_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column('position', sa.Integer(), nullable=False),
        sa.Column('external_id', sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
        sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
        sa.Column('email', sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
        sa.Column('phone', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column('amount', server.db.types.DecimalText(), nullable=False),
        sa.Column('coin', sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column('merchant_address_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column('address', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
        sa.Column('payment_method', sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column('payout_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=True),
        sa.Column('created_at', sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(['payroll_id'], ['payrolls.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('payout_id'),
    )
    op.create_index('ix_payroll_items_payroll', 'payroll_items', ['payroll_id', 'position'])
    op.add_column('payouts', sa.Column('payroll_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=True))
    op.create_index('ix_payouts_payroll_id', 'payouts', ['payroll_id'])


def downgrade() -> None:
    op.drop_index('ix_payouts_payroll_id', table_name='payouts')
    with op.batch_alter_table('payouts') as batch:
        batch.drop_column('payroll_id')
    op.drop_index('ix_payroll_items_payroll', table_name='payroll_items')
    op.drop_table('payroll_items')
    op.drop_index('ix_payrolls_scope_newest', table_name='payrolls')
    op.drop_table('payrolls')
