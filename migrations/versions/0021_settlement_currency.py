"""the merchant's settlement currency (DESIGN §15: "the merchant's settlement fiat, USD by default")

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-26 16:10:00.000000

Deploy compatibility: adds one column with a server default (old code ignores it and shows USD, as before).
"""
import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = '0021'
down_revision = '0020'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column('merchants', sa.Column('settlement_currency', sqlmodel.sql.sqltypes.AutoString(length=10),
                                         nullable=False, server_default='USD'))


def downgrade() -> None:
    with op.batch_alter_table('merchants') as batch:
        batch.drop_column('settlement_currency')
