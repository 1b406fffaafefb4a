"""A player's own time zone: ``user_settings.time_zone``.

An IANA name (``Europe/Berlin``) chosen in the settings; none means the browser's zone (a
cookie its script sets), else UTC. Pages show times in it.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("user_settings") as batch:
        batch.add_column(sa.Column("time_zone", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("user_settings") as batch:
        batch.drop_column("time_zone")
