"""webhooks: endpoints, deliveries; event data as exact JSON text

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22 07:41:15.770081

Deploy compatibility: adds two tables; events.data becomes TEXT (a rewrite of events under an ACCESS EXCLUSIVE lock,
short while the outbox is young); code of 0003 writes a JSON value into it and must not run against this schema.
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel
import server.db.types
from sqlalchemy.dialects import postgresql

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('webhook_endpoints',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('merchant_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('livemode', sa.Boolean(), nullable=False),
    sa.Column('url', sqlmodel.sql.sqltypes.AutoString(length=2000), nullable=False),
    sa.Column('enabled_events', sa.JSON().with_variant(postgresql.JSONB(), 'postgresql'), nullable=False),
    sa.Column('description', sqlmodel.sql.sqltypes.AutoString(length=1000), nullable=False),
    sa.Column('disabled', sa.Boolean(), nullable=False),
    sa.Column('secret', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
    sa.Column('previous_secret', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
    sa.Column('previous_secret_expires_at', sa.BigInteger(), nullable=True),
    sa.Column('api_version', sqlmodel.sql.sqltypes.AutoString(length=10), nullable=False),
    sa.Column('created', sa.BigInteger(), nullable=False),
    sa.Column('updated', sa.BigInteger(), nullable=False),
    sa.Column('sort_key', sa.BigInteger(), nullable=False),
    sa.Column('deleted_at', sa.BigInteger(), nullable=True),
    sa.ForeignKeyConstraint(['merchant_id'], ['merchants.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('webhook_endpoints', schema=None) as batch_op:
        batch_op.create_index('ix_webhook_endpoints_scope_newest', ['merchant_id', 'livemode', 'sort_key'], unique=False)

    op.create_table('event_deliveries',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('event_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('endpoint_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('merchant_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('object_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('event_sort_key', sa.BigInteger(), nullable=False),
    sa.Column('attempt', sa.Integer(), nullable=False),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
    sa.Column('due_at', sa.BigInteger(), nullable=False),
    sa.Column('window_start', sa.BigInteger(), nullable=False),
    sa.Column('locked_until', sa.BigInteger(), nullable=True),
    sa.Column('lease', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('url', sqlmodel.sql.sqltypes.AutoString(length=2000), nullable=False),
    sa.Column('http_status', sa.Integer(), nullable=False),
    sa.Column('latency_ms', sa.BigInteger(), nullable=False),
    sa.Column('response_excerpt', sqlmodel.sql.sqltypes.AutoString(length=1000), nullable=False),
    sa.Column('attempted_at', sa.BigInteger(), nullable=True),
    sa.Column('next_attempt_at', sa.BigInteger(), nullable=True),
    sa.Column('sort_key', sa.BigInteger(), nullable=False),
    sa.ForeignKeyConstraint(['endpoint_id'], ['webhook_endpoints.id'], ),
    sa.ForeignKeyConstraint(['event_id'], ['events.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('event_id', 'endpoint_id', 'attempt', name='uq_event_deliveries_attempt')
    )
    with op.batch_alter_table('event_deliveries', schema=None) as batch_op:
        batch_op.create_index('ix_event_deliveries_due', ['status', 'due_at'], unique=False)
        batch_op.create_index('ix_event_deliveries_event', ['event_id', 'sort_key'], unique=False)
        batch_op.create_index('ix_event_deliveries_object', ['endpoint_id', 'object_id', 'status'], unique=False)

    with op.batch_alter_table('events', schema=None) as batch_op:
        batch_op.alter_column('data',
               existing_type=sa.JSON().with_variant(postgresql.JSONB(), 'postgresql'),
               type_=sa.Text(),
               existing_nullable=False,
               postgresql_using='data::text')



def downgrade() -> None:
    with op.batch_alter_table('events', schema=None) as batch_op:
        batch_op.alter_column('data',
               existing_type=sa.Text(),
               type_=sa.JSON().with_variant(postgresql.JSONB(), 'postgresql'),
               existing_nullable=False,
               postgresql_using='data::jsonb')

    with op.batch_alter_table('event_deliveries', schema=None) as batch_op:
        batch_op.drop_index('ix_event_deliveries_object')
        batch_op.drop_index('ix_event_deliveries_event')
        batch_op.drop_index('ix_event_deliveries_due')

    op.drop_table('event_deliveries')
    with op.batch_alter_table('webhook_endpoints', schema=None) as batch_op:
        batch_op.drop_index('ix_webhook_endpoints_scope_newest')

    op.drop_table('webhook_endpoints')
