"""payout approvals (four eyes, DESIGN §15)

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-23 07:40:00.000000

Deploy compatibility: adds columns with server defaults (old code ignores them; an old server would accept an
approver key as a secret key, so deploy the code before creating approver keys) and one table.
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel
import server.db.types

revision = '0020'
down_revision = '0019'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column('api_keys', sa.Column('role', sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False,
                                        server_default=''))
    op.add_column('merchants', sa.Column('payout_approvals_required', sa.Integer(), nullable=False,
                                         server_default='0'))
    op.add_column('merchants', sa.Column('payout_approval_threshold', server.db.types.DecimalText(), nullable=False,
                                         server_default='0'))
    op.add_column('payouts', sa.Column('approvals_required', sa.Integer(), nullable=False, server_default='0'))
    op.add_column('payouts', sa.Column('created_by_key', sqlmodel.sql.sqltypes.AutoString(length=40),
                                       nullable=False, server_default=''))
    op.create_table('payout_approval_actions',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('payout_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('merchant_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('action', sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
    sa.Column('key_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('voter_key', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('comment', sqlmodel.sql.sqltypes.AutoString(length=1000), nullable=False),
    sa.Column('created', sa.BigInteger(), nullable=False),
    sa.Column('sort_key', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index('ix_payout_approval_actions_payout', 'payout_approval_actions', ['payout_id', 'sort_key'])
    op.create_index('ux_payout_approval_votes', 'payout_approval_actions', ['payout_id', 'voter_key'], unique=True)


def downgrade() -> None:
    op.drop_index('ux_payout_approval_votes', table_name='payout_approval_actions')
    op.drop_index('ix_payout_approval_actions_payout', table_name='payout_approval_actions')
    op.drop_table('payout_approval_actions')
    with op.batch_alter_table('payouts') as batch:
        batch.drop_column('created_by_key')
        batch.drop_column('approvals_required')
    with op.batch_alter_table('merchants') as batch:
        batch.drop_column('payout_approval_threshold')
        batch.drop_column('payout_approvals_required')
    with op.batch_alter_table('api_keys') as batch:
        batch.drop_column('role')
