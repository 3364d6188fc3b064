"""chain transfers keep every sender of their transaction: a UTXO transaction spends coins of many addresses, and AML
screening rejects it when any of them is deny-listed (issue 34)

Revision ID: 0040
Revises: 0039
Create Date: 2026-12-04 02:10:00.000000

Deploy compatibility: adds one nullable column without a default, so no existing row is rewritten and the lock is
brief. Rows from before it, and every EVM row, keep NULL: their one sender is `from_address`, which screening reads as
before; old code ignores the column.
"""
import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = '0040'
down_revision = '0039'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column('chain_transfers', sa.Column(
        'from_addresses', sa.JSON().with_variant(postgresql.JSONB(), 'postgresql'), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('chain_transfers') as batch:
        batch.drop_column('from_addresses')
