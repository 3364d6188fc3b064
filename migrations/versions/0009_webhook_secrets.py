"""webhook signing secrets sealed at rest

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-22 23:45:00

Deploy compatibility: widens webhook_endpoints.secret and previous_secret (80 → 255 characters: a Fernet token
is longer than the secret) and seals the secrets stored in clear, under `encryption_key` from configuration (the
development key in var/ for test-mode rows when none is configured). Old code would sign with the sealed value:
stop the old schedulers before migrating. On PostgreSQL, widening a varchar rewrites nothing (a brief ACCESS
EXCLUSIVE lock for the catalog change); on SQLite the columns are replaced with native ALTERs, no table rebuild.
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel

revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade() -> None:
    _widen(255)
    _seal_secrets_in_clear()


def _widen(length: int) -> None:
    if op.get_bind().dialect.name != 'sqlite':
        for column in ('secret', 'previous_secret'):
            op.alter_column('webhook_endpoints', column, type_=sqlmodel.sql.sqltypes.AutoString(length=length),
                            existing_nullable=False)
        return
    # SQLite: a batch rebuild would drop the table, which event_deliveries references (foreign keys are on and
    # cannot be turned off inside the migration's transaction); native column operations rebuild nothing.
    for column in ('secret', 'previous_secret'):
        op.execute(f"ALTER TABLE webhook_endpoints ADD COLUMN {column}_new VARCHAR({length}) NOT NULL DEFAULT ''")
        op.execute(f"UPDATE webhook_endpoints SET {column}_new = {column}")
        op.execute(f"ALTER TABLE webhook_endpoints DROP COLUMN {column}")
        op.execute(f"ALTER TABLE webhook_endpoints RENAME COLUMN {column}_new TO {column}")


def _seal_secrets_in_clear() -> None:
    # Imported here: the settings and the sealing of today's code, run once over the rows written before it.
    from server.config import load_settings
    from server.sealing import PREFIX, SecretBox

    conn = op.get_bind()
    table = sa.table('webhook_endpoints', sa.column('id', sa.String), sa.column('livemode', sa.Boolean),
                     sa.column('secret', sa.String), sa.column('previous_secret', sa.String))
    rows = conn.execute(sa.select(table.c.id, table.c.livemode, table.c.secret, table.c.previous_secret)).all()
    pending = [r for r in rows if not r.secret.startswith(PREFIX)
               or (r.previous_secret and not r.previous_secret.startswith(PREFIX))]
    if not pending:
        return
    box = SecretBox(load_settings().encryption_key)
    for row in pending:
        values = {}
        for column in ('secret', 'previous_secret'):
            value = getattr(row, column)
            if value and not value.startswith(PREFIX):
                values[column] = box.seal(value, livemode=row.livemode)
        conn.execute(table.update().where(table.c.id == row.id).values(**values))


def downgrade() -> None:
    # Sealed secrets stay sealed (opening them needs the key; this code never writes them back in clear), so the
    # columns stay wide enough for them.
    pass
