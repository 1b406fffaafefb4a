"""A player may have a turn confirm itself: ``user_settings.auto_confirm``.

When set, the pages send a decision that leaves nothing but confirm together with the confirm
(Board Game Arena's "no confirmation" preference); otherwise the turn waits for Confirm.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("user_settings") as batch:
        batch.add_column(sa.Column("auto_confirm", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("user_settings") as batch:
        batch.drop_column("auto_confirm")
