"""PostgreSQL: event_deliveries pages keep room for updated rows (fillfactor 70), so a claim's lease and other
updates of columns no index holds stay on the row's page (HOT) instead of adding an entry to each of its five indexes

Revision ID: 0028
Revises: 0027
Create Date: 2026-11-28 23:15:00.000000

Deploy compatibility: a storage parameter only (no lock beyond a moment's ACCESS EXCLUSIVE for the catalogue change,
no row rewritten: existing pages fill as before, new and rewritten pages keep the room). Old code is unaffected.
SQLite has no such setting: nothing to do there.
"""
from alembic import op

revision = '0028'
down_revision = '0027'
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name == 'postgresql':
        op.execute('ALTER TABLE event_deliveries SET (fillfactor = 70)')


def downgrade() -> None:
    if op.get_bind().dialect.name == 'postgresql':
        op.execute('ALTER TABLE event_deliveries RESET (fillfactor)')
