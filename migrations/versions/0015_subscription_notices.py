"""subscription notices: the period end whose advance notices were sent

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-23 06:20:00

Deploy compatibility: adds one nullable column (subscriptions.notified_for); old code ignores it. Rows that exist
get NULL: a subscription whose renewal is less than 3 days away sends its notices once after the upgrade.
"""
from alembic import op
import sqlalchemy as sa

revision = '0015'
down_revision = '0014'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('subscriptions', schema=None) as batch_op:
        batch_op.add_column(sa.Column('notified_for', sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('subscriptions', schema=None) as batch_op:
        batch_op.drop_column('notified_for')
