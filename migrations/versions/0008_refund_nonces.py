"""every transaction signed from a treasury (refund, fee-bumped replacements, cancels, gap fillers)

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-22 23:40:00

Deploy compatibility: adds one table, filled with the transaction already signed for each refund transaction; old
code ignores it. No lock on existing tables beyond the copy's read.
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel
import server.db.types

revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('treasury_signed_transactions',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=60), nullable=False),
    sa.Column('network', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('source_address', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
    sa.Column('nonce', sa.BigInteger(), nullable=False),
    sa.Column('refund_transaction_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=True),
    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
    sa.Column('tx_hash', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
    sa.Column('raw', sa.Text(), nullable=False),
    sa.Column('value_base', server.db.types.DecimalText(), nullable=False),
    sa.Column('created_at', sa.BigInteger(), nullable=False),
    sa.ForeignKeyConstraint(['refund_transaction_id'], ['refund_transactions.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('tx_hash')
    )
    with op.batch_alter_table('treasury_signed_transactions', schema=None) as batch_op:
        batch_op.create_index('ix_treasury_signed_nonce', ['network', 'source_address', 'nonce'], unique=False)
        batch_op.create_index(batch_op.f('ix_treasury_signed_transactions_refund_transaction_id'),
                              ['refund_transaction_id'], unique=False)
    # The transaction each existing refund transaction was signed as: the first of its signed transactions.
    op.execute("INSERT INTO treasury_signed_transactions (id, network, source_address, nonce, refund_transaction_id,"
               " kind, tx_hash, raw, value_base, created_at) SELECT 'stx_' || id, network, source_address, nonce, id,"
               " 'refund', tx_hash, raw, amount_base, created_at FROM refund_transactions")


def downgrade() -> None:
    with op.batch_alter_table('treasury_signed_transactions', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_treasury_signed_transactions_refund_transaction_id'))
        batch_op.drop_index('ix_treasury_signed_nonce')
    op.drop_table('treasury_signed_transactions')
