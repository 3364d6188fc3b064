"""webhook attempts still to make get partial indexes in the claim's order, so a claim reads a batch, not the backlog

Revision ID: 0023
Revises: 0022
Create Date: 2026-11-27 17:15:00.000000

Deploy compatibility: replaces two indexes of event_deliveries; old code's queries are the same and use the new
ones. On a large attempt log, build them CONCURRENTLY by hand first (same names and definitions) to avoid the lock.
"""
import sqlalchemy as sa
from alembic import op

revision = '0023'
down_revision = '0022'
branch_labels = None
depends_on = None

PENDING = sa.text("status = 'pending'")


def upgrade() -> None:
    with op.batch_alter_table('event_deliveries', schema=None) as batch_op:
        batch_op.drop_index('ix_event_deliveries_due')
        batch_op.drop_index('ix_event_deliveries_object')
    op.create_index('ix_event_deliveries_pending', 'event_deliveries', ['due_at', 'event_sort_key'], unique=False,
                    if_not_exists=True, postgresql_where=PENDING, sqlite_where=PENDING)
    op.create_index('ix_event_deliveries_pending_object', 'event_deliveries',
                    ['endpoint_id', 'object_id', 'event_sort_key'], unique=False, if_not_exists=True,
                    postgresql_where=PENDING, sqlite_where=PENDING)


def downgrade() -> None:
    op.drop_index('ix_event_deliveries_pending_object', table_name='event_deliveries')
    op.drop_index('ix_event_deliveries_pending', table_name='event_deliveries')
    with op.batch_alter_table('event_deliveries', schema=None) as batch_op:
        batch_op.create_index('ix_event_deliveries_object', ['endpoint_id', 'object_id', 'status'], unique=False)
        batch_op.create_index('ix_event_deliveries_due', ['status', 'due_at'], unique=False)
