"""payment link return_url (the hosted checkout page)

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-23 02:50:00.000000

Deploy compatibility: adds one column with a default; old code ignores it. No rewrite of existing rows.
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel

revision = '0013'
down_revision = '0012'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('payment_links', schema=None) as batch_op:
        batch_op.add_column(sa.Column('return_url', sqlmodel.sql.sqltypes.AutoString(length=2000), nullable=False,
                                      server_default=''))


def downgrade() -> None:
    with op.batch_alter_table('payment_links', schema=None) as batch_op:
        batch_op.drop_column('return_url')
