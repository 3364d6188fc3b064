"""payout address proof: signature, approver, wait after re-adding

Revision ID: 0032
Revises: 0031
Create Date: 2026-12-02 01:00:00.000000
"""
import sqlalchemy as sa  # noqa: F401
from alembic import op  # noqa: F401

revision = '0032'
down_revision = '0031'
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
