"""Throttles for logins and registrations (replacing login_attempts); names compared with
widths folded and kept apart by their confusable skeletons.

Existing names keep working. Each user's key becomes ``names.key(name)`` (widths and case
folded) and gets ``names.skeleton(name)``, oldest account first; an account whose folded key
or skeleton an older one already has keeps its key as typed (it still logs in with it) and no
skeleton (None), and is named in the migration's output so an administrator can rename it.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-03
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from app.services import names

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TS = sa.DateTime(timezone=True)
log = logging.getLogger("alembic.runtime.migration")


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

    with op.batch_alter_table("users") as users:
        users.add_column(sa.Column("name_skeleton", sa.String(200), nullable=True))
    _backfill_names()
    with op.batch_alter_table("users") as users:
        users.create_unique_constraint("uq_users_name_skeleton", ["name_skeleton"])


def _backfill_names() -> None:
    bind = op.get_bind()
    table = sa.table(
        "users", sa.column("id"), sa.column("name"), sa.column("name_key"), sa.column("name_skeleton")
    )
    rows = bind.execute(sa.select(table.c.id, table.c.name, table.c.name_key).order_by(table.c.id)).all()
    keys = {key for _, _, key in rows}
    skeletons: set[str] = set()
    for user_id, name, old_key in rows:
        key, skeleton = names.key(name), names.skeleton(name)
        if key != old_key and key in keys:
            log.warning("user %s (%r) keeps its name key %r: %r is taken", user_id, name, old_key, key)
            key = old_key
        if skeleton in skeletons:
            log.warning("user %s (%r) looks like an older name: consider renaming it", user_id, name)
            skeleton = None
        keys.discard(old_key)
        keys.add(key)
        if skeleton is not None:
            skeletons.add(skeleton)
        bind.execute(
            sa.update(table).where(table.c.id == user_id).values(name_key=key, name_skeleton=skeleton)
        )


def downgrade() -> None:
    with op.batch_alter_table("users") as users:
        users.drop_constraint("uq_users_name_skeleton", type_="unique")
        users.drop_column("name_skeleton")
    bind = op.get_bind()
    table = sa.table("users", sa.column("id"), sa.column("name"), sa.column("name_key"))
    for user_id, name in bind.execute(sa.select(table.c.id, table.c.name)).all():
        bind.execute(sa.update(table).where(table.c.id == user_id).values(name_key=name.casefold()[:40]))
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
