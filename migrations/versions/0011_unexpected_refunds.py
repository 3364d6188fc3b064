"""refunds of unexpected funds

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-23 02:50:00.000000

Deploy compatibility: adds one boolean column with a server default (false: every existing refund refunds its
payment); old code ignores it. No table rewrite on PostgreSQL (a constant default).
"""
from alembic import op
import sqlalchemy as sa

revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('refunds') as batch:
        batch.add_column(sa.Column('unexpected_funds', sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table('refunds') as batch:
        batch.drop_column('unexpected_funds')
