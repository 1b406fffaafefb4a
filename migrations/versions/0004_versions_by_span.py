"""Versions by span: ``version = committed_version * 1000 + private changes since``.

A commit used to set ``committed_version`` to ``version + 1``, so after a turn every other seat
could count the acting seat's pending decisions and undos. Now ``committed_version`` counts
public changes one by one and ``version`` (the lock) is ``committed_version * 1000`` plus the
pending decisions and undos since (``app.db.matches.VERSION_SPAN``). Existing matches get the
same public count they showed, and their pending count on top.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels = None
depends_on = None

SPAN = 1000


def upgrade() -> None:
    # The pending changes of a running turn: version - committed_version (at most SPAN - 1).
    op.execute(
        f"UPDATE matches SET version = committed_version * {SPAN}"
        f" + CASE WHEN version - committed_version BETWEEN 0 AND {SPAN - 1}"
        f" THEN version - committed_version ELSE 0 END"
    )


def downgrade() -> None:
    op.execute(f"UPDATE matches SET version = committed_version + version % {SPAN}")
