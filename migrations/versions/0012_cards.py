"""card payments through provider_a: keys per merchant and mode, saved cards, card columns on charges and refunds

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-23 02:40:00.000000

Deploy compatibility: two new tables; new columns on charges and refunds, each with a server default, so old code
keeps writing rows (it never fills them). PostgreSQL adds a column with a constant default without rewriting the
table; SQLite's ADD COLUMN rebuilds nothing.
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel

revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None

S = sqlmodel.sql.sqltypes.AutoString


def upgrade() -> None:
    op.create_table('provider_accounts',
    sa.Column('merchant_id', S(length=40), nullable=False),
    sa.Column('livemode', sa.Boolean(), nullable=False),
    sa.Column('provider', S(length=20), nullable=False),
    sa.Column('secret_key', S(length=1000), nullable=False),
    sa.Column('publishable_key', S(length=255), nullable=False),
    sa.Column('webhook_secret', S(length=1000), nullable=False),
    sa.Column('created', sa.BigInteger(), nullable=False),
    sa.Column('updated', sa.BigInteger(), nullable=False),
    sa.ForeignKeyConstraint(['merchant_id'], ['merchants.id'], ),
    sa.PrimaryKeyConstraint('merchant_id', 'livemode', 'provider')
    )
    op.create_table('saved_payment_methods',
    sa.Column('id', S(length=40), nullable=False),
    sa.Column('merchant_id', S(length=40), nullable=False),
    sa.Column('livemode', sa.Boolean(), nullable=False),
    sa.Column('customer_id', S(length=40), nullable=False),
    sa.Column('provider', S(length=20), nullable=False),
    sa.Column('provider_customer_id', S(length=100), nullable=False),
    sa.Column('provider_payment_method_id', S(length=100), nullable=False),
    sa.Column('type', S(length=20), nullable=False),
    sa.Column('brand', S(length=40), nullable=False),
    sa.Column('last4', S(length=4), nullable=False),
    sa.Column('funding', S(length=20), nullable=False),
    sa.Column('exp_month', sa.Integer(), nullable=False),
    sa.Column('exp_year', sa.Integer(), nullable=False),
    sa.Column('country', S(length=2), nullable=False),
    sa.Column('fingerprint', S(length=100), nullable=False),
    sa.Column('created', sa.BigInteger(), nullable=False),
    sa.ForeignKeyConstraint(['customer_id'], ['customers.id'], ),
    sa.ForeignKeyConstraint(['merchant_id'], ['merchants.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index('ix_saved_payment_methods_customer', 'saved_payment_methods', ['customer_id', 'fingerprint'])
    for name, type_, default in (
            ('payment_provider', S(length=20), ''), ('provider_payment_id', S(length=100), ''),
            ('provider_client_secret', S(length=255), ''), ('provider_public_key', S(length=255), ''),
            ('idempotency_key', S(length=255), ''), ('provider_status', S(length=40), ''),
            ('saved_payment_method_id', S(length=40), ''), ('save_payment_method', sa.Boolean(), sa.false()),
            ('failure_code', S(length=100), ''), ('failure_message', S(length=500), ''),
            ('provider_checked_at', sa.BigInteger(), '0')):
        op.add_column('charges', sa.Column(name, type_, nullable=False, server_default=default))
    op.create_index(op.f('ix_charges_provider_payment_id'), 'charges', ['provider_payment_id'])
    op.create_index(op.f('ix_charges_idempotency_key'), 'charges', ['idempotency_key'])
    op.add_column('refunds', sa.Column('provider_refund_id', S(length=100), nullable=False, server_default=''))


def downgrade() -> None:
    op.drop_column('refunds', 'provider_refund_id')
    op.drop_index(op.f('ix_charges_idempotency_key'), table_name='charges')
    op.drop_index(op.f('ix_charges_provider_payment_id'), table_name='charges')
    for name in ('payment_provider', 'provider_payment_id', 'provider_client_secret', 'provider_public_key',
                 'idempotency_key', 'provider_status',
                 'saved_payment_method_id', 'save_payment_method', 'failure_code', 'failure_message',
                 'provider_checked_at'):
        op.drop_column('charges', name)
    op.drop_index('ix_saved_payment_methods_customer', table_name='saved_payment_methods')
    op.drop_table('saved_payment_methods')
    op.drop_table('provider_accounts')
