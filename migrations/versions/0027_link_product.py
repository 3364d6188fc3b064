"""a payment link purchase names its product in a column of its own, indexed with the intent's status: the stock a
checkout may sell is counted from the open purchases of its products, not from every open intent

Revision ID: 0027
Revises: 0026
Create Date: 2026-11-28 15:30:00.000000

Deploy compatibility: adds one nullable column without a default (no row rewritten) and one index, then fills the
column for the link purchases that still hold stock (RequiresPaymentMethod, Processing, PartialPaid; ended ones are
never counted again). Old code ignores the column; link purchases it creates while a rolling deploy runs leave it
empty, so new code does not count their units as held: the last units could be sold twice in that window (a sale
beyond the stock still succeeds, is logged, and the stock stops at 0, as when a merchant lowers it).
"""
import json

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = '0027'
down_revision = '0026'
branch_labels = None
depends_on = None

HOLDING = ('RequiresPaymentMethod', 'Processing', 'PartialPaid')


def upgrade() -> None:
    op.add_column('payment_intents', sa.Column('link_product_id', sqlmodel.sql.sqltypes.AutoString(length=40),
                                               nullable=True))
    op.create_index('ix_payment_intents_link_product', 'payment_intents', ['link_product_id', 'status'])
    conn = op.get_bind()
    rows = conn.execute(sa.text(
        "SELECT id, link_snapshot FROM payment_intents WHERE link_snapshot IS NOT NULL AND link_product_id IS NULL "
        "AND status IN :holding").bindparams(sa.bindparam('holding', expanding=True)), {'holding': list(HOLDING)})
    for intent_id, snapshot in rows.all():
        found = json.loads(snapshot) if isinstance(snapshot, str) else snapshot
        product = ((found or {}).get('product') or {}).get('id')
        if product:
            conn.execute(sa.text("UPDATE payment_intents SET link_product_id = :p WHERE id = :i"),
                         {'p': str(product), 'i': intent_id})


def downgrade() -> None:
    op.drop_index('ix_payment_intents_link_product', table_name='payment_intents')
    with op.batch_alter_table('payment_intents') as batch:
        batch.drop_column('link_product_id')
