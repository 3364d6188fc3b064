"""one-time codes: failures per address and client IP

Revision ID: 0033
Revises: 0032
Create Date: 2026-12-02 01:00:00.000000

Wrong guesses lock a code for the client IP that made them, not for the address's owner, and the codes sent are
capped per client IP and per payment link besides per address (DESIGN §16): each code records who asked for it
(`client_ip`, `payment_link_id`), and each wrong guess is a row of `verification_code_failures`.

Deploy compatibility: adds two columns with a constant server default ('') and a new table; neither database rewrites
`verification_codes` for it. Old code's inserts, which do not name the columns, get '', which the new caps count
under no IP and no link (codes sent by old code before the switch are still counted per address). Old code keeps
counting and locking by `attempts`, which new code still increments (all IPs together), so a code old code
considers locked stays locked for it during a rolling deploy; new code locks by the failures table only.
"""
import sqlalchemy as sa
from alembic import op

revision = '0033'
down_revision = '0032'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column('verification_codes', sa.Column('client_ip', sa.String(length=64), nullable=False,
                                                  server_default=''))
    op.add_column('verification_codes', sa.Column('payment_link_id', sa.String(length=40), nullable=False,
                                                  server_default=''))
    op.create_index('ix_verification_codes_client_ip_created', 'verification_codes', ['client_ip', 'created'])
    op.create_index('ix_verification_codes_link_created', 'verification_codes', ['payment_link_id', 'created'])
    op.create_table(
        'verification_code_failures',
        sa.Column('id', sa.String(length=40), nullable=False),
        sa.Column('code_id', sa.String(length=40), nullable=False),
        sa.Column('client_ip', sa.String(length=64), nullable=False),
        sa.Column('created', sa.BigInteger(), nullable=False),
        sa.Column('expires_at', sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_verification_code_failures_code_ip', 'verification_code_failures', ['code_id', 'client_ip'])
    op.create_index('ix_verification_code_failures_expires_at', 'verification_code_failures', ['expires_at'])


def downgrade() -> None:
    op.drop_index('ix_verification_code_failures_expires_at', table_name='verification_code_failures')
    op.drop_index('ix_verification_code_failures_code_ip', table_name='verification_code_failures')
    op.drop_table('verification_code_failures')
    op.drop_index('ix_verification_codes_link_created', table_name='verification_codes')
    op.drop_index('ix_verification_codes_client_ip_created', table_name='verification_codes')
    with op.batch_alter_table('verification_codes') as batch:
        batch.drop_column('payment_link_id')
        batch.drop_column('client_ip')
