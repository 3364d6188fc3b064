"""stock holds: unpaid checkouts and units per shopper

Revision ID: 0034
Revises: 0033
Create Date: 2026-12-02 01:00:00.000000
"""
import sqlalchemy as sa  # noqa: F401
from alembic import op  # noqa: F401

revision = '0034'
down_revision = '0033'
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
