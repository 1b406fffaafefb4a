"""Bot users and stand-ins: computer opponents sit at tables as users that cannot log in.

``users.bot_level`` names the bot's level (None: a person). A bot gets the same door as a
person (seats, request ids, the log), so bots are users; several of one level can share a
table, hence a few of each. Their names have a space, which no registered name may have, and
their password hash is no hash at all, so no login ever matches. ``seats.stand_in`` names the
level of a bot playing a person's seat for them (the timeout policy "bot") until they take it back.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels = None
depends_on = None

LEVELS = ("easy", "normal", "strong")
PER_LEVEL = 4
"""A five-seat table has at most four bots beside its one person."""
NO_PASSWORD = "!bot"


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("bot_level", sa.String(16), nullable=True))
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("stand_in", sa.String(16), nullable=True))
    users = sa.table(
        "users",
        sa.column("name", sa.String),
        sa.column("name_key", sa.String),
        sa.column("name_skeleton", sa.String),
        sa.column("password_hash", sa.String),
        sa.column("locale", sa.String),
        sa.column("is_admin", sa.Boolean),
        sa.column("created_at", sa.DateTime(timezone=True)),
        sa.column("bot_level", sa.String),
    )
    now = datetime.now(UTC)
    if op.get_bind().dialect.name == "sqlite":
        now = now.replace(tzinfo=None)  # SQLite keeps naive UTC (app.db.types.UtcDateTime)
    op.bulk_insert(
        users,
        [
            {
                "name": f"Bot {level} {n}",
                "name_key": f"bot {level} {n}",
                "name_skeleton": None,
                "password_hash": NO_PASSWORD,
                "locale": "en",
                "is_admin": False,
                "created_at": now,
                "bot_level": level,
            }
            for level in LEVELS
            for n in range(1, PER_LEVEL + 1)
        ],
    )


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("stand_in")
    op.execute("DELETE FROM users WHERE bot_level IS NOT NULL")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("bot_level")
