"""events outbox

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22 07:33:45.924875

Deploy compatibility: adds a table; old code ignores it. No lock on existing tables.
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel
import server.db.types
from sqlalchemy.dialects import postgresql

revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade() -> None:

    op.create_table('events',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('merchant_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('livemode', sa.Boolean(), nullable=False),
    sa.Column('type', sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
    sa.Column('api_version', sqlmodel.sql.sqltypes.AutoString(length=10), nullable=False),
    sa.Column('object_type', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('object_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('data', sa.JSON().with_variant(postgresql.JSONB(), 'postgresql'), nullable=False),
    sa.Column('created', sa.BigInteger(), nullable=False),
    sa.Column('sort_key', sa.BigInteger(), nullable=False),
    sa.ForeignKeyConstraint(['merchant_id'], ['merchants.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('events', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_events_created'), ['created'], unique=False)
        batch_op.create_index('ix_events_object', ['object_id', 'sort_key'], unique=False)
        batch_op.create_index('ix_events_scope_newest', ['merchant_id', 'livemode', 'sort_key'], unique=False)
        batch_op.create_index(batch_op.f('ix_events_type'), ['type'], unique=False)




def downgrade() -> None:

    with op.batch_alter_table('events', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_events_type'))
        batch_op.drop_index('ix_events_scope_newest')
        batch_op.drop_index('ix_events_object')
        batch_op.drop_index(batch_op.f('ix_events_created'))

    op.drop_table('events')

