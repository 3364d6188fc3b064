"""API keys: expires_at (a rolled key's grace period, `paygate merchants keys roll`)

Revision ID: 0030
Revises: 0029
Create Date: 2026-12-02 01:00:00.000000

Deploy compatibility: adds one nullable column with no default, so neither database rewrites the table (PostgreSQL
takes its ACCESS EXCLUSIVE lock on `api_keys` only for the catalogue change; every call's key look-up waits that
moment). NULL means "does not expire", which is what every existing key is. Old code neither reads nor writes it: an
old process still running would keep accepting a rolled key after its grace, so roll keys only once every process
runs this release (README "Upgrading": a release does not roll anyway).
"""
import sqlalchemy as sa
from alembic import op

revision = '0030'
down_revision = '0029'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column('api_keys', sa.Column('expires_at', sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('api_keys') as batch:
        batch.drop_column('expires_at')
