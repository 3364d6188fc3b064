"""each crypto charge keeps the grace its quote was opened with (`quote_grace_seconds`, a setting now): a transfer
arriving that long after the quote lapsed still pays at its rate

Revision ID: 0029
Revises: 0028
Create Date: 2026-11-29 02:40:00.000000

Deploy compatibility: adds one column with a constant server default (30, the grace every charge had so far). Neither
database rewrites the table for it (PostgreSQL 11+ keeps the default in the catalogue; SQLite's ADD COLUMN never
rewrites), and old code's inserts, which do not name the column, get 30, which is what old code counts with.
"""
import sqlalchemy as sa
from alembic import op

revision = '0029'
down_revision = '0028'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column('charges', sa.Column('quote_grace_seconds', sa.Integer(), nullable=False, server_default='30'))


def downgrade() -> None:
    with op.batch_alter_table('charges') as batch:
        batch.drop_column('quote_grace_seconds')
