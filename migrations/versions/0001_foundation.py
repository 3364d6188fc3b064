"""foundation: merchants, keys, customers, products, payment links, idempotency

Revision ID: 0001
Revises: 
Create Date: 2026-11-22 07:24:27.980832

Deploy compatibility: first revision; it only creates tables, so it takes no lock on existing data.
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel
import server.db.types
from sqlalchemy.dialects import postgresql

revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:

    op.create_table('idempotency_keys',
    sa.Column('merchant_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('livemode', sa.Boolean(), nullable=False),
    sa.Column('key', sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
    sa.Column('method', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
    sa.Column('request_hash', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('state', sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
    sa.Column('locked_until', sa.BigInteger(), nullable=False),
    sa.Column('status_code', sa.Integer(), nullable=False),
    sa.Column('response', sa.LargeBinary(), nullable=True),
    sa.Column('created', sa.BigInteger(), nullable=False),
    sa.Column('expires_at', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('merchant_id', 'livemode', 'key')
    )
    with op.batch_alter_table('idempotency_keys', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_idempotency_keys_expires_at'), ['expires_at'], unique=False)

    op.create_table('merchants',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
    sa.Column('created', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_table('api_keys',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('merchant_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('livemode', sa.Boolean(), nullable=False),
    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=10), nullable=False),
    sa.Column('lookup', sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
    sa.Column('hint', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('created', sa.BigInteger(), nullable=False),
    sa.Column('revoked_at', sa.BigInteger(), nullable=True),
    sa.ForeignKeyConstraint(['merchant_id'], ['merchants.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('lookup')
    )
    with op.batch_alter_table('api_keys', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_api_keys_merchant_id'), ['merchant_id'], unique=False)

    op.create_table('customers',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('merchant_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('livemode', sa.Boolean(), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
    sa.Column('email', sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
    sa.Column('phone', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('uuid', sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
    sa.Column('description', sqlmodel.sql.sqltypes.AutoString(length=1000), nullable=False),
    sa.Column('metadata', sa.JSON().with_variant(postgresql.JSONB(), 'postgresql'), nullable=False),
    sa.Column('addresses', sa.JSON().with_variant(postgresql.JSONB(), 'postgresql'), nullable=False),
    sa.Column('currency', sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
    sa.Column('total_payment', server.db.types.DecimalText(), nullable=False),
    sa.Column('total_refund', server.db.types.DecimalText(), nullable=False),
    sa.Column('provider_a_customer_id', sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
    sa.Column('provider_b_customer_id', sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
    sa.Column('created', sa.BigInteger(), nullable=False),
    sa.Column('sort_key', sa.BigInteger(), nullable=False),
    sa.Column('updated', sa.BigInteger(), nullable=False),
    sa.Column('deleted_at', sa.BigInteger(), nullable=True),
    sa.ForeignKeyConstraint(['merchant_id'], ['merchants.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('customers', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_customers_email'), ['email'], unique=False)
        batch_op.create_index('ix_customers_scope_newest', ['merchant_id', 'livemode', 'sort_key'], unique=False)

    op.create_table('ephemeral_tokens',
    sa.Column('token_hash', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('merchant_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('livemode', sa.Boolean(), nullable=False),
    sa.Column('idp_key', sqlmodel.sql.sqltypes.AutoString(length=10), nullable=False),
    sa.Column('idp_subject', sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
    sa.Column('provider', sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
    sa.Column('order_id', sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
    sa.Column('return_url', sqlmodel.sql.sqltypes.AutoString(length=2000), nullable=False),
    sa.Column('issued_by', sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
    sa.Column('allow_create', sa.Boolean(), nullable=False),
    sa.Column('channel_metadata', sa.JSON().with_variant(postgresql.JSONB(), 'postgresql'), nullable=False),
    sa.Column('created', sa.BigInteger(), nullable=False),
    sa.Column('expires_at', sa.BigInteger(), nullable=False),
    sa.ForeignKeyConstraint(['merchant_id'], ['merchants.id'], ),
    sa.PrimaryKeyConstraint('token_hash')
    )
    with op.batch_alter_table('ephemeral_tokens', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_ephemeral_tokens_expires_at'), ['expires_at'], unique=False)

    op.create_table('products',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('merchant_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('livemode', sa.Boolean(), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
    sa.Column('description', sqlmodel.sql.sqltypes.AutoString(length=5000), nullable=False),
    sa.Column('active', sa.Boolean(), nullable=False),
    sa.Column('default_currency', sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
    sa.Column('fixed_price', server.db.types.DecimalText(), nullable=True),
    sa.Column('options', sa.JSON().with_variant(postgresql.JSONB(), 'postgresql'), nullable=False),
    sa.Column('metadata', sa.JSON().with_variant(postgresql.JSONB(), 'postgresql'), nullable=False),
    sa.Column('collect_shipping_address', sa.Boolean(), nullable=False),
    sa.Column('collect_tax_address', sa.Boolean(), nullable=False),
    sa.Column('image_url', sqlmodel.sql.sqltypes.AutoString(length=2000), nullable=False),
    sa.Column('version', sa.BigInteger(), nullable=False),
    sa.Column('created_at', sa.BigInteger(), nullable=False),
    sa.Column('sort_key', sa.BigInteger(), nullable=False),
    sa.Column('updated_at', sa.BigInteger(), nullable=False),
    sa.ForeignKeyConstraint(['merchant_id'], ['merchants.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('products', schema=None) as batch_op:
        batch_op.create_index('ix_products_scope_newest', ['merchant_id', 'livemode', 'sort_key'], unique=False)

    op.create_table('verification_codes',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('merchant_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('livemode', sa.Boolean(), nullable=False),
    sa.Column('channel', sqlmodel.sql.sqltypes.AutoString(length=10), nullable=False),
    sa.Column('subject', sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
    sa.Column('code_hash', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('consumed', sa.Boolean(), nullable=False),
    sa.Column('created', sa.BigInteger(), nullable=False),
    sa.Column('expires_at', sa.BigInteger(), nullable=False),
    sa.ForeignKeyConstraint(['merchant_id'], ['merchants.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('verification_codes', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_verification_codes_expires_at'), ['expires_at'], unique=False)
        batch_op.create_index(batch_op.f('ix_verification_codes_subject'), ['subject'], unique=False)

    op.create_table('auth_tokens',
    sa.Column('token_hash', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('merchant_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('livemode', sa.Boolean(), nullable=False),
    sa.Column('customer_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('created', sa.BigInteger(), nullable=False),
    sa.Column('expires_at', sa.BigInteger(), nullable=False),
    sa.ForeignKeyConstraint(['customer_id'], ['customers.id'], ),
    sa.ForeignKeyConstraint(['merchant_id'], ['merchants.id'], ),
    sa.PrimaryKeyConstraint('token_hash')
    )
    with op.batch_alter_table('auth_tokens', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_auth_tokens_expires_at'), ['expires_at'], unique=False)

    op.create_table('payment_links',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('merchant_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('livemode', sa.Boolean(), nullable=False),
    sa.Column('product_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('active', sa.Boolean(), nullable=False),
    sa.Column('default_variant_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('variant_config', sa.JSON().with_variant(postgresql.JSONB(), 'postgresql'), nullable=False),
    sa.Column('created_at', sa.BigInteger(), nullable=False),
    sa.Column('sort_key', sa.BigInteger(), nullable=False),
    sa.Column('updated_at', sa.BigInteger(), nullable=False),
    sa.ForeignKeyConstraint(['merchant_id'], ['merchants.id'], ),
    sa.ForeignKeyConstraint(['product_id'], ['products.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('payment_links', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_payment_links_product_id'), ['product_id'], unique=False)
        batch_op.create_index('ix_payment_links_scope_newest', ['merchant_id', 'livemode', 'sort_key'], unique=False)

    op.create_table('product_variants',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('product_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('option_values', sa.JSON().with_variant(postgresql.JSONB(), 'postgresql'), nullable=False),
    sa.Column('price', server.db.types.DecimalText(), nullable=False),
    sa.Column('currency', sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
    sa.Column('active', sa.Boolean(), nullable=False),
    sa.Column('inventory_quantity', sa.BigInteger(), nullable=True),
    sa.Column('sku', sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
    sa.ForeignKeyConstraint(['product_id'], ['products.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('product_variants', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_product_variants_product_id'), ['product_id'], unique=False)

    op.create_table('selling_plans',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('product_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
    sa.Column('description', sqlmodel.sql.sqltypes.AutoString(length=2000), nullable=False),
    sa.Column('billing_cycle', sqlmodel.sql.sqltypes.AutoString(length=10), nullable=False),
    sa.Column('billing_cycle_interval', sa.Integer(), nullable=False),
    sa.Column('trial_period_days', sa.Integer(), nullable=False),
    sa.Column('pricing_policies', sa.JSON().with_variant(postgresql.JSONB(), 'postgresql'), nullable=False),
    sa.ForeignKeyConstraint(['product_id'], ['products.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('selling_plans', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_selling_plans_product_id'), ['product_id'], unique=False)

    op.create_table('payment_link_items',
    sa.Column('link_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('variant_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=10), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('quantity', sa.Integer(), nullable=False),
    sa.Column('min_quantity', sa.Integer(), nullable=False),
    sa.Column('max_quantity', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['link_id'], ['payment_links.id'], ),
    sa.ForeignKeyConstraint(['variant_id'], ['product_variants.id'], ),
    sa.PrimaryKeyConstraint('link_id', 'variant_id')
    )
    with op.batch_alter_table('payment_link_items', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_payment_link_items_variant_id'), ['variant_id'], unique=False)




def downgrade() -> None:

    with op.batch_alter_table('payment_link_items', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_payment_link_items_variant_id'))

    op.drop_table('payment_link_items')
    with op.batch_alter_table('selling_plans', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_selling_plans_product_id'))

    op.drop_table('selling_plans')
    with op.batch_alter_table('product_variants', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_product_variants_product_id'))

    op.drop_table('product_variants')
    with op.batch_alter_table('payment_links', schema=None) as batch_op:
        batch_op.drop_index('ix_payment_links_scope_newest')
        batch_op.drop_index(batch_op.f('ix_payment_links_product_id'))

    op.drop_table('payment_links')
    with op.batch_alter_table('auth_tokens', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_auth_tokens_expires_at'))

    op.drop_table('auth_tokens')
    with op.batch_alter_table('verification_codes', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_verification_codes_subject'))
        batch_op.drop_index(batch_op.f('ix_verification_codes_expires_at'))

    op.drop_table('verification_codes')
    with op.batch_alter_table('products', schema=None) as batch_op:
        batch_op.drop_index('ix_products_scope_newest')

    op.drop_table('products')
    with op.batch_alter_table('ephemeral_tokens', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_ephemeral_tokens_expires_at'))

    op.drop_table('ephemeral_tokens')
    with op.batch_alter_table('customers', schema=None) as batch_op:
        batch_op.drop_index('ix_customers_scope_newest')
        batch_op.drop_index(batch_op.f('ix_customers_email'))

    op.drop_table('customers')
    with op.batch_alter_table('api_keys', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_api_keys_merchant_id'))

    op.drop_table('api_keys')
    op.drop_table('merchants')
    with op.batch_alter_table('idempotency_keys', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_idempotency_keys_expires_at'))

    op.drop_table('idempotency_keys')

