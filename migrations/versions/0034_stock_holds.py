"""stock holds: unpaid checkouts and units per shopper (DESIGN §16): each payment link purchase keeps the address
of the shopper's client that made it (`payment_intents.shopper_ip`), whose holds the per-shopper cap counts when
the purchase has no customer

Revision ID: 0034
Revises: 0033
Create Date: 2026-12-02 01:00:00.000000

Deploy compatibility: adds one column with a constant server default (''), which neither database rewrites the
table for (PostgreSQL 11+ keeps the default in the catalogue; SQLite's ADD COLUMN never rewrites). Old code's
inserts, which do not name the column, get '': a purchase of no shopper address, which the new code counts against
its customer when it has one and against nobody otherwise, as old code counted no shopper at all. The checkout
hold itself (`checkout_hold_seconds`) is derived from columns every intent already has (`created`, `status`).
"""
import sqlalchemy as sa
from alembic import op

revision = '0034'
down_revision = '0033'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column('payment_intents', sa.Column('shopper_ip', sa.String(length=100), nullable=False,
                                               server_default=''))


def downgrade() -> None:
    with op.batch_alter_table('payment_intents') as batch:
        batch.drop_column('shopper_ip')
