"""Tournaments: a round robin's final stage (the best of each group go on), the podium kept at
the end (for its notification and mail) and who may create tournaments (the administrator's
setting); invitations by name to an invitation-only tournament.

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("tournaments", sa.Column("final_per_group", sa.Integer, nullable=True))
    op.add_column("tournaments", sa.Column("podium", sa.JSON, nullable=True))
    op.create_table(
        "tournament_invites",
        sa.Column(
            "tournament_id", sa.Integer, sa.ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    )
    op.create_index("ix_tournament_invites_user_id", "tournament_invites", ["user_id"])
    op.create_table(
        "tournament_policy",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("admins_only", sa.Boolean, nullable=False, server_default=sa.false()),
    )


def downgrade() -> None:
    op.drop_table("tournament_policy")
    op.drop_index("ix_tournament_invites_user_id", table_name="tournament_invites")
    op.drop_table("tournament_invites")
    with op.batch_alter_table("tournaments") as batch:
        batch.drop_column("podium")
        batch.drop_column("final_per_group")
