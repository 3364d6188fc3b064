"""selling-plan groups (DESIGN §17): plans belong to a group, a group names the products it applies to; each
product's existing plans move into a group of its own (owner_product_id), so a product reads the same plans as before

Revision ID: 0036
Revises: 0035
Create Date: 2026-12-03 01:00:00.000000

Deploy compatibility: not with old code running. `selling_plans.product_id` is replaced by `group_id` (old code
reads and writes product_id), so stop the old processes, migrate, then start the new ones. The backfill writes one
group and one membership row per product that has plans; SQLite rebuilds `selling_plans` (batch mode) and
PostgreSQL takes an ACCESS EXCLUSIVE lock on it for the column changes: a short pause on a catalogue-sized table.
"""
import secrets
import string

import sqlalchemy as sa
import sqlmodel
from sqlalchemy.dialects import postgresql
from alembic import op

revision = '0036'
down_revision = '0035'
branch_labels = None
depends_on = None

_BASE62 = string.digits + string.ascii_letters


def _group_id() -> str:
    return "spg_" + "".join(secrets.choice(_BASE62) for _ in range(24))


def upgrade() -> None:
    op.create_table(
        'selling_plan_groups',
        sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column('merchant_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column('livemode', sa.Boolean(), nullable=False),
        sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
        sa.Column('description', sqlmodel.sql.sqltypes.AutoString(length=2000), nullable=False),
        sa.Column('options', sa.JSON().with_variant(postgresql.JSONB(), 'postgresql'), nullable=False),
        sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=10), nullable=False),
        sa.Column('owner_product_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=True),
        sa.Column('created_at', sa.BigInteger(), nullable=False),
        sa.Column('updated_at', sa.BigInteger(), nullable=False),
        sa.Column('sort_key', sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(['merchant_id'], ['merchants.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_selling_plan_groups_scope_newest', 'selling_plan_groups',
                    ['merchant_id', 'livemode', 'sort_key'])
    op.create_index('ix_selling_plan_groups_owner_product_id', 'selling_plan_groups', ['owner_product_id'])
    op.create_table(
        'selling_plan_group_products',
        sa.Column('group_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column('product_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column('position', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['group_id'], ['selling_plan_groups.id']),
        sa.ForeignKeyConstraint(['product_id'], ['products.id']),
        sa.PrimaryKeyConstraint('group_id', 'product_id'),
    )
    op.create_index('ix_selling_plan_group_products_product_id', 'selling_plan_group_products', ['product_id'])
    with op.batch_alter_table('selling_plans') as batch:
        batch.add_column(sa.Column('group_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=True))
        batch.add_column(sa.Column('merchant_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False,
                                   server_default=''))
        batch.add_column(sa.Column('livemode', sa.Boolean(), nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=10), nullable=False,
                                   server_default='active'))
        batch.add_column(sa.Column('created_at', sa.BigInteger(), nullable=False, server_default='0'))
        batch.add_column(sa.Column('updated_at', sa.BigInteger(), nullable=False, server_default='0'))
        batch.add_column(sa.Column('version', sa.BigInteger(), nullable=False, server_default='1'))
    bind = op.get_bind()
    owners = bind.execute(sa.text(
        "SELECT DISTINCT p.id, p.merchant_id, p.livemode, p.name, p.created_at, p.updated_at, p.sort_key "
        "FROM products p JOIN selling_plans s ON s.product_id = p.id")).all()
    for product_id, merchant_id, livemode, name, created_at, updated_at, sort_key in owners:
        group_id = _group_id()
        bind.execute(sa.text(
            "INSERT INTO selling_plan_groups (id, merchant_id, livemode, name, description, options, status, "
            "owner_product_id, created_at, updated_at, sort_key) VALUES (:id, :m, :l, :n, '', '[]', 'active', :p, "
            ":c, :u, :s)"), {"id": group_id, "m": merchant_id, "l": livemode, "n": name[:255], "p": product_id,
                             "c": created_at, "u": updated_at, "s": sort_key})
        bind.execute(sa.text("INSERT INTO selling_plan_group_products (group_id, product_id, position) "
                             "VALUES (:g, :p, 0)"), {"g": group_id, "p": product_id})
        bind.execute(sa.text(
            "UPDATE selling_plans SET group_id = :g, merchant_id = :m, livemode = :l, created_at = :c, "
            "updated_at = :u WHERE product_id = :p"),
            {"g": group_id, "m": merchant_id, "l": livemode, "c": created_at, "u": updated_at, "p": product_id})
    with op.batch_alter_table('selling_plans') as batch:
        batch.drop_index('ix_selling_plans_product_id')
        batch.drop_column('product_id')
        batch.alter_column('group_id', existing_type=sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False)
        batch.create_foreign_key('fk_selling_plans_group_id', 'selling_plan_groups', ['group_id'], ['id'])
        batch.create_index('ix_selling_plans_group_id', ['group_id'])


def downgrade() -> None:
    with op.batch_alter_table('selling_plans') as batch:
        batch.add_column(sa.Column('product_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=True))
    op.execute("UPDATE selling_plans SET product_id = (SELECT g.owner_product_id FROM selling_plan_groups g "
               "WHERE g.id = selling_plans.group_id)")
    op.execute("DELETE FROM selling_plans WHERE product_id IS NULL")
    with op.batch_alter_table('selling_plans') as batch:
        batch.drop_index('ix_selling_plans_group_id')
        batch.drop_constraint('fk_selling_plans_group_id', type_='foreignkey')
        for column in ('group_id', 'merchant_id', 'livemode', 'status', 'created_at', 'updated_at', 'version'):
            batch.drop_column(column)
        batch.alter_column('product_id', existing_type=sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False)
        batch.create_foreign_key('fk_selling_plans_product_id', 'products', ['product_id'], ['id'])
        batch.create_index('ix_selling_plans_product_id', ['product_id'])
    op.drop_table('selling_plan_group_products')
    op.drop_table('selling_plan_groups')
