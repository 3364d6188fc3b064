"""rate limit buckets

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-22 23:40:00.000000

Deploy compatibility: adds one table (used on PostgreSQL only); old code ignores it. No lock on existing tables.
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel

revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('rate_limit_buckets',
    sa.Column('bucket', sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
    sa.Column('tokens', sa.Float(), nullable=False),
    sa.Column('updated_at', sa.Float(), nullable=False),
    sa.Column('granted', sa.Float(), nullable=False),
    sa.Column('rate', sa.Float(), nullable=False),
    sa.Column('burst', sa.Float(), nullable=False),
    sa.PrimaryKeyConstraint('bucket')
    )


def downgrade() -> None:
    op.drop_table('rate_limit_buckets')
