"""card testing: attempts and declines per customer and client IP

Revision ID: 0035
Revises: 0034
Create Date: 2026-12-02 01:00:00.000000
"""
import sqlalchemy as sa  # noqa: F401
from alembic import op  # noqa: F401

revision = '0035'
down_revision = '0034'
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
