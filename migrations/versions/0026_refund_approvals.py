"""a refund to an address other than the payer's waits for the merchant's payout approvers (four eyes): its approval
status, the approvals it needs and the key that created it

Revision ID: 0026
Revises: 0025
Create Date: 2026-11-28 15:00:00.000000

Deploy compatibility: adds three columns with constant server defaults (PostgreSQL 11+ and SQLite add them without
rewriting a row). Refunds from before it read `not_required`: they were created under the old rule and are sent as
they were. Old code ignores the columns, but would send a refund still waiting for approval: deploy the new code to
every scheduler before a merchant with approvers creates one.
"""
import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = '0026'
down_revision = '0025'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column('refunds', sa.Column('approval_status', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False,
                                       server_default='not_required'))
    op.add_column('refunds', sa.Column('approvals_required', sa.Integer(), nullable=False, server_default='0'))
    op.add_column('refunds', sa.Column('created_by_key', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False, server_default=''))


def downgrade() -> None:
    with op.batch_alter_table('refunds') as batch:
        batch.drop_column('created_by_key')
        batch.drop_column('approvals_required')
        batch.drop_column('approval_status')
