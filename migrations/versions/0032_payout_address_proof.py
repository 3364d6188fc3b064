"""payout address proof: signature, approver, wait after re-adding

Revision ID: 0032
Revises: 0031
Create Date: 2026-12-02 01:00:00.000000

Deploy compatibility: adds six columns to `merchant_addresses`, each with a constant server default (neither
database rewrites the table: PostgreSQL 11+ keeps the default in the catalogue, SQLite's ADD COLUMN never rewrites),
so old code's inserts, which do not name them, still work; and one index on (merchant, mode, network, address), a
short lock on a table of a few rows per merchant. Addresses already verified stay usable (their proof was the rule
of their day: `approval_status` `not_required`). An address still waiting for its proof gets a nonce to sign, and
in live mode waits for an approver too, as a new one would. Until every server runs the new code, an old process
still verifies an address by its micro-deposit alone (and a live one without an approver) and lets a re-added
address receive payouts at once.
"""
import secrets

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = '0032'
down_revision = '0031'
branch_labels = None
depends_on = None

COLUMNS = ('verification_nonce', 'proof_method', 'approval_status', 'approvals_required', 'created_by_key',
           'usable_from')


def upgrade() -> None:
    op.add_column('merchant_addresses', sa.Column('verification_nonce', sqlmodel.sql.sqltypes.AutoString(length=64),
                                                  nullable=False, server_default=''))
    op.add_column('merchant_addresses', sa.Column('proof_method', sqlmodel.sql.sqltypes.AutoString(length=16),
                                                  nullable=False, server_default=''))
    op.add_column('merchant_addresses', sa.Column('approval_status', sqlmodel.sql.sqltypes.AutoString(length=16),
                                                  nullable=False, server_default='not_required'))
    op.add_column('merchant_addresses', sa.Column('approvals_required', sa.Integer(), nullable=False,
                                                  server_default='0'))
    op.add_column('merchant_addresses', sa.Column('created_by_key', sqlmodel.sql.sqltypes.AutoString(length=40),
                                                  nullable=False, server_default=''))
    op.add_column('merchant_addresses', sa.Column('usable_from', sa.BigInteger(), nullable=False,
                                                  server_default='0'))
    op.create_index('ix_merchant_addresses_address', 'merchant_addresses',
                    ['merchant_id', 'livemode', 'network', 'address'])
    conn = op.get_bind()
    op.execute(sa.text("UPDATE merchant_addresses SET proof_method = 'micro_deposit' WHERE status = 'verified'"))
    op.execute(sa.text("UPDATE merchant_addresses SET approval_status = 'pending', approvals_required = 1 "
                       "WHERE status = 'pending_verification' AND livemode = :live").bindparams(live=True))
    # A random nonce per waiting address, drawn here: SQL has no random source common to both databases.
    waiting = conn.execute(sa.text("SELECT id FROM merchant_addresses WHERE status = 'pending_verification'"))
    for (address_id,) in list(waiting):
        conn.execute(sa.text("UPDATE merchant_addresses SET verification_nonce = :nonce WHERE id = :id"),
                     {"nonce": secrets.token_hex(16), "id": address_id})


def downgrade() -> None:
    op.drop_index('ix_merchant_addresses_address', table_name='merchant_addresses')
    with op.batch_alter_table('merchant_addresses') as batch:
        for column in COLUMNS:
            batch.drop_column(column)
