"""four eyes by default: approvals set per mode, turned off only explicitly, each choice kept (`approval_settings`)

Revision ID: 0031
Revises: 0030
Create Date: 2026-12-02 01:00:00.000000

Deploy compatibility: adds one table and copies into it, for both modes, the approvals of every merchant whose
`payout_approvals_required` was above 0 (the only settings that were certainly chosen: a 0 is also what a merchant
that never chose reads, so those merchants get the new default). The two merchant columns stay, unread by new code,
so that old processes keep running through the deploy; old code ignores the table, so until every server runs the new
code a live payout from a merchant without an approver key is not refused, and an approvals change made with an old
`paygate` is not seen by new code.
"""
import time

import sqlalchemy as sa
import sqlmodel
from alembic import op

import server.db.types

revision = '0031'
down_revision = '0030'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('approval_settings',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('merchant_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('livemode', sa.Boolean(), nullable=False),
    sa.Column('approvals_required', sa.Integer(), nullable=False),
    sa.Column('threshold', server.db.types.DecimalText(), nullable=False),
    sa.Column('actor', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('created', sa.BigInteger(), nullable=False),
    sa.Column('sort_key', sa.BigInteger(), nullable=False),
    sa.ForeignKeyConstraint(['merchant_id'], ['merchants.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index('ix_approval_settings_merchant_mode', 'approval_settings', ['merchant_id', 'livemode', 'sort_key'])
    now = int(time.time())
    # The ids are the merchant's own with the mode: unique, and no random source is needed in SQL.
    op.execute(sa.text(
        "INSERT INTO approval_settings (id, merchant_id, livemode, approvals_required, threshold, actor, created, "
        "sort_key) SELECT 'aps_' || m.id || (CASE WHEN modes.live THEN '_live' ELSE '_test' END), m.id, modes.live, "
        "m.payout_approvals_required, m.payout_approval_threshold, 'migration', :now, :sort_key FROM merchants m "
        "CROSS JOIN (SELECT false AS live UNION ALL SELECT true) modes WHERE m.payout_approvals_required > 0"
    ).bindparams(now=now, sort_key=now * 1_000_000))


def downgrade() -> None:
    op.drop_index('ix_approval_settings_merchant_mode', table_name='approval_settings')
    op.drop_table('approval_settings')
