"""API keys: expires_at (a rolled key's grace period)

Revision ID: 0030
Revises: 0029
Create Date: 2026-12-02 01:00:00.000000
"""
import sqlalchemy as sa  # noqa: F401
from alembic import op  # noqa: F401

revision = '0030'
down_revision = '0029'
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
