"""card calls outside the unit of work

Revision ID: 0036
Revises: 0035
Create Date: 2026-12-02 01:00:00.000000
"""
import sqlalchemy as sa  # noqa: F401
from alembic import op  # noqa: F401

revision = '0036'
down_revision = '0035'
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
