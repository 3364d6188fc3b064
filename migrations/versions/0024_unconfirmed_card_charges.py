"""card charges whose confirmation went unanswered get a partial index: the scheduler asks about them every few seconds

Revision ID: 0024
Revises: 0023
Create Date: 2026-11-28 04:10:00.000000

Deploy compatibility: adds an index only; old code never writes the `unconfirmed` provider status, so the index stays
empty under it.
"""
import sqlalchemy as sa
from alembic import op

revision = '0024'
down_revision = '0023'
branch_labels = None
depends_on = None

UNCONFIRMED = sa.text("provider_status = 'unconfirmed'")


def upgrade() -> None:
    op.create_index('ix_charges_unconfirmed', 'charges', ['payment_intent_id'], unique=False, if_not_exists=True,
                    postgresql_where=UNCONFIRMED, sqlite_where=UNCONFIRMED)


def downgrade() -> None:
    op.drop_index('ix_charges_unconfirmed', table_name='charges')
