"""card testing: each card charge keeps the address of the shopper whose call opened it, indexed with its time, so
card attempts and declines per client IP and per customer in the last hour are counted from the charges

Revision ID: 0035
Revises: 0034
Create Date: 2026-12-02 01:00:00.000000

Deploy compatibility: adds one column with a constant server default ('') and an index on it and `created`. Neither
database rewrites the table for the column (PostgreSQL 11+ keeps the default in the catalogue; SQLite's ADD COLUMN
never rewrites); old code's inserts, which do not name it, get '', as charges opened before this revision have: they
count only per intent, as a merchant's own charges do. The index build reads the whole table and, on PostgreSQL,
blocks writes to `charges` meanwhile: on a large table build it CONCURRENTLY by hand first (same name and
definition), which this revision then leaves alone.
"""
import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = '0035'
down_revision = '0034'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column('charges', sa.Column('client_ip', sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False,
                                       server_default=''))
    op.create_index('ix_charges_client_ip', 'charges', ['client_ip', 'created'], unique=False, if_not_exists=True)


def downgrade() -> None:
    op.drop_index('ix_charges_client_ip', table_name='charges')
    with op.batch_alter_table('charges') as batch:
        batch.drop_column('client_ip')
