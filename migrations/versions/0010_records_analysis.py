"""Imported match records (``imported_matches``) and analyses of finished matches (``match_analyses``).

A match made from an uploaded record has seats without users; the record's names, its date and
who uploaded it are kept here.

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "imported_matches",
        sa.Column("match_id", sa.Integer, sa.ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("imported_by", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("names", sa.JSON, nullable=False),
        sa.Column("played_on", sa.String(40), nullable=False),
        sa.Column("imported_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_imported_matches_imported_by", "imported_matches", ["imported_by"])
    op.create_table(
        "match_analyses",
        sa.Column("match_id", sa.Integer, sa.ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("steps", sa.Integer, nullable=False),
        sa.Column("done", sa.Integer, nullable=False),
        sa.Column("items", sa.JSON, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("match_analyses")
    op.drop_index("ix_imported_matches_imported_by", table_name="imported_matches")
    op.drop_table("imported_matches")
