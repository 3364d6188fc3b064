"""chain transfers keep their block's timestamp: a quote is checked against when the payment was mined, not only when
the watcher first saw it

Revision ID: 0025
Revises: 0024
Create Date: 2026-11-28 09:30:00.000000

Deploy compatibility: adds one nullable column without a default, so no existing row is rewritten and the lock is
brief. Rows from before it keep NULL and the quote rule falls back to their first-seen time, as old code did; old code
ignores the column.
"""
import sqlalchemy as sa
from alembic import op

revision = '0025'
down_revision = '0024'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column('chain_transfers', sa.Column('block_timestamp', sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('chain_transfers') as batch:
        batch.drop_column('block_timestamp')
