"""Throttles for logins and registrations (replacing login_attempts).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "throttles",
        sa.Column("key", sa.String(120), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_at", TS, nullable=False),
        sa.Column("blocked_until", TS, nullable=False),
        sa.PrimaryKeyConstraint("key", name="pk_throttles"),
    )
    op.create_index("ix_throttles_last_at", "throttles", ["last_at"])
    # The old per-name count is dropped: the new throttles start afresh.
    op.drop_index("ix_login_attempts_created_at", table_name="login_attempts")
    op.drop_index("ix_login_attempts_name_key", table_name="login_attempts")
    op.drop_table("login_attempts")


def downgrade() -> None:
    op.create_table(
        "login_attempts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name_key", sa.String(40), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_login_attempts"),
    )
    op.create_index("ix_login_attempts_name_key", "login_attempts", ["name_key"])
    op.create_index("ix_login_attempts_created_at", "login_attempts", ["created_at"])
    op.drop_index("ix_throttles_last_at", table_name="throttles")
    op.drop_table("throttles")
