"""Asynchronous play: match_controls, user_settings, notifications, ratings, rating_history,
password_resets.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TS = sa.DateTime(timezone=True)


def _fk(table: str, column: str, target: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column], [f"{target}.id"], name=f"fk_{table}_{column}_{target}", ondelete="CASCADE"
    )


def upgrade() -> None:
    op.create_table(
        "match_controls",
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("days_per_move", sa.Integer(), nullable=True),
        sa.Column("policy", sa.String(16), nullable=False),
        sa.Column("extension_days", sa.Integer(), nullable=False),
        sa.Column("extension_for", TS, nullable=True),
        sa.Column("timed_out", sa.JSON(), nullable=False),
        sa.Column("late", sa.JSON(), nullable=False),
        sa.Column("late_for", TS, nullable=True),
        sa.Column("votes", sa.JSON(), nullable=False),
        sa.Column("resigned", sa.JSON(), nullable=False),
        sa.Column("draw_offer_by", sa.Integer(), nullable=True),
        sa.Column("conclusion", sa.String(16), nullable=True),
        sa.Column("rematch_of", sa.Integer(), nullable=True),
        sa.Column("rematch_id", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("match_id", name="pk_match_controls"),
        _fk("match_controls", "match_id", "matches"),
    )
    op.create_table(
        "user_settings",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("email", sa.String(254), nullable=True),
        sa.Column("mail_opt_out", sa.Boolean(), nullable=False),
        sa.Column("disabled", sa.Boolean(), nullable=False),
        sa.Column("vacation_year", sa.Integer(), nullable=False),
        sa.Column("vacation_used", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("user_id", name="pk_user_settings"),
        _fk("user_settings", "user_id", "users"),
    )
    op.create_table(
        "notifications",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("period", TS, nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("read_at", TS, nullable=True),
        sa.Column("mail_state", sa.String(8), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_notifications"),
        _fk("notifications", "user_id", "users"),
        _fk("notifications", "match_id", "matches"),
        sa.UniqueConstraint(
            "user_id", "match_id", "kind", "period", name="uq_notifications_user_id_match_id_kind_period"
        ),
    )
    op.create_index("ix_notifications_user_id_read_at", "notifications", ["user_id", "read_at"])
    op.create_index("ix_notifications_mail_state", "notifications", ["mail_state"])
    op.create_table(
        "ratings",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(40), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("updated_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("user_id", "game", name="pk_ratings"),
        _fk("ratings", "user_id", "users"),
    )
    op.create_table(
        "rating_history",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(40), nullable=False),
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("mu_before", sa.Float(), nullable=False),
        sa.Column("sigma_before", sa.Float(), nullable=False),
        sa.Column("mu_after", sa.Float(), nullable=False),
        sa.Column("sigma_after", sa.Float(), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_rating_history"),
        _fk("rating_history", "user_id", "users"),
        _fk("rating_history", "match_id", "matches"),
        sa.UniqueConstraint("user_id", "match_id", name="uq_rating_history_user_id_match_id"),
    )
    op.create_index("ix_rating_history_user_id_game", "rating_history", ["user_id", "game"])
    op.create_table(
        "password_resets",
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("expires_at", TS, nullable=False),
        sa.Column("used_at", TS, nullable=True),
        sa.PrimaryKeyConstraint("token_hash", name="pk_password_resets"),
        _fk("password_resets", "user_id", "users"),
    )
    op.create_index("ix_password_resets_user_id", "password_resets", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_password_resets_user_id", table_name="password_resets")
    op.drop_table("password_resets")
    op.drop_index("ix_rating_history_user_id_game", table_name="rating_history")
    op.drop_table("rating_history")
    op.drop_table("ratings")
    op.drop_index("ix_notifications_mail_state", table_name="notifications")
    op.drop_index("ix_notifications_user_id_read_at", table_name="notifications")
    op.drop_table("notifications")
    op.drop_table("user_settings")
    op.drop_table("match_controls")
