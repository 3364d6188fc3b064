"""chain watch: AML checks

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-22 07:44:55.293838

Deploy compatibility: adds a table; old code ignores it. No lock on existing tables.
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('aml_checks',
    sa.Column('transfer_id', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('network', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('screener', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
    sa.Column('info', sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('requested_at', sa.BigInteger(), nullable=False),
    sa.Column('decided_at', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('transfer_id')
    )
    with op.batch_alter_table('aml_checks', schema=None) as batch_op:
        batch_op.create_index('ix_aml_checks_network_status', ['network', 'status'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('aml_checks', schema=None) as batch_op:
        batch_op.drop_index('ix_aml_checks_network_status')

    op.drop_table('aml_checks')
