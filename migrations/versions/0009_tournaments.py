"""Tournaments: tournaments, their players, rounds (unique per tournament and number) and matches.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op


revision: str = "0009"
down_revision: str | None = "0008"
branch_labels = None
depends_on = None
TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("game", sa.String(40), nullable=False),
        sa.Column("options", sa.JSON, nullable=False),
        sa.Column("table_size", sa.Integer, nullable=False),
        sa.Column("format", sa.String(16), nullable=False),
        sa.Column("rounds", sa.Integer, nullable=True),
        sa.Column("places", sa.Integer, nullable=False),
        sa.Column("group_size", sa.Integer, nullable=True),
        sa.Column("advance", sa.Integer, nullable=False),
        sa.Column("signup_until", TS, nullable=True),
        sa.Column("start_when_full", sa.Boolean, nullable=False),
        sa.Column("days_per_move", sa.Integer, nullable=False),
        sa.Column("timeout_action", sa.String(16), nullable=False),
        sa.Column("public", sa.Boolean, nullable=False),
        sa.Column("invite_token", sa.String(64), nullable=False),
        sa.Column("created_by", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("current_round", sa.Integer, nullable=False),
        sa.Column("seed", sa.String(32), nullable=False),
        sa.Column("plan", sa.JSON, nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("started_at", TS, nullable=True),
        sa.Column("finished_at", TS, nullable=True),
    )
    op.create_index("ix_tournaments_created_by", "tournaments", ["created_by"])
    op.create_index("ix_tournaments_status_id", "tournaments", ["status", "id"])
    op.create_table(
        "tournament_players",
        sa.Column(
            "tournament_id", sa.Integer, sa.ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seed", sa.Integer, nullable=True),
        sa.Column("withdrawn_in", sa.Integer, nullable=True),
        sa.Column("joined_at", TS, nullable=False),
    )
    op.create_index("ix_tournament_players_user_id", "tournament_players", ["user_id"])
    op.create_table(
        "tournament_rounds",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "tournament_id", sa.Integer, sa.ForeignKey("tournaments.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("tables", sa.JSON, nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.UniqueConstraint("tournament_id", "number"),
    )
    op.create_table(
        "tournament_matches",
        sa.Column("match_id", sa.Integer, sa.ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True),
        sa.Column(
            "tournament_id", sa.Integer, sa.ForeignKey("tournaments.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("table_no", sa.Integer, nullable=False),
    )
    op.create_index(
        "ix_tournament_matches_tournament_round", "tournament_matches", ["tournament_id", "round"]
    )


def downgrade() -> None:
    op.drop_table("tournament_matches")
    op.drop_table("tournament_rounds")
    op.drop_table("tournament_players")
    op.drop_table("tournaments")
