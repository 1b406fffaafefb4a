"""Friends, blocks, and statistics kept when a match ends.

- ``friendships`` (a request: one row from the asker; a friendship: a row each way) and
  ``blocks``;
- ``player_game_stats``, ``opponent_stats``, ``game_tallies``: counted by
  ``app.services.tallies`` in the transaction that records a match's end, once per match
  (``tallied_matches``); matches finished before this revision are counted here, in SQL
  (their winning streaks and Draco's summit dragons excepted: those start from now);
- indexes on ``seats (user_id, match_id)`` for the head-to-head lists and on
  ``rating_history (user_id, game, id)`` for the rating graph's newest points.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def _fk(table: str, column: str, target: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column], [f"{target}.id"], name=f"fk_{table}_{column}_{target}", ondelete="CASCADE"
    )


def upgrade() -> None:
    op.create_table(
        "friendships",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("other_id", sa.Integer(), nullable=False),
        sa.Column("accepted", sa.Boolean(), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("user_id", "other_id", name="pk_friendships"),
        _fk("friendships", "user_id", "users"),
        _fk("friendships", "other_id", "users"),
    )
    op.create_index("ix_friendships_other_id_accepted", "friendships", ["other_id", "accepted"])
    op.create_table(
        "blocks",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("blocked_id", sa.Integer(), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("user_id", "blocked_id", name="pk_blocks"),
        _fk("blocks", "user_id", "users"),
        _fk("blocks", "blocked_id", "users"),
    )
    op.create_index("ix_blocks_blocked_id", "blocks", ["blocked_id"])
    op.create_table(
        "tallied_matches",
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("match_id", name="pk_tallied_matches"),
        _fk("tallied_matches", "match_id", "matches"),
    )
    op.create_table(
        "player_game_stats",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(40), nullable=False),
        sa.Column("played", sa.Integer(), nullable=False),
        sa.Column("won", sa.Integer(), nullable=False),
        sa.Column("rank_sum", sa.Integer(), nullable=False),
        sa.Column("scored", sa.Integer(), nullable=False),
        sa.Column("score_sum", sa.Float(), nullable=False),
        sa.Column("streak", sa.Integer(), nullable=False),
        sa.Column("best_streak", sa.Integer(), nullable=False),
        sa.Column("best_rating", sa.Float(), nullable=True),
        sa.PrimaryKeyConstraint("user_id", "game", name="pk_player_game_stats"),
        _fk("player_game_stats", "user_id", "users"),
    )
    op.create_table(
        "opponent_stats",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(40), nullable=False),
        sa.Column("other_id", sa.Integer(), nullable=False),
        sa.Column("played", sa.Integer(), nullable=False),
        sa.Column("won", sa.Integer(), nullable=False),
        sa.Column("lost", sa.Integer(), nullable=False),
        sa.Column("drawn", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("user_id", "game", "other_id", name="pk_opponent_stats"),
        _fk("opponent_stats", "user_id", "users"),
        _fk("opponent_stats", "other_id", "users"),
    )
    op.create_table(
        "game_tallies",
        sa.Column("game", sa.String(40), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(40), nullable=False),
        sa.Column("count", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("game", "players", "key", name="pk_game_tallies"),
    )
    op.create_index("ix_seats_user_id_match_id", "seats", ["user_id", "match_id"])
    op.create_index("ix_rating_history_user_id_game_id", "rating_history", ["user_id", "game", "id"])
    _count_finished_matches()


def _count_finished_matches() -> None:
    """Matches that ended before this revision, counted once (in plain SQL: both databases)."""
    finished = "SELECT id FROM matches WHERE status = 'finished'"
    op.execute(
        f"""INSERT INTO player_game_stats
        (user_id, game, played, won, rank_sum, scored, score_sum, streak, best_streak, best_rating)
        SELECT s.user_id, m.game, COUNT(*), SUM(CASE WHEN s.rank = 1 THEN 1 ELSE 0 END),
               SUM(COALESCE(s.rank, 0)), COUNT(*), SUM(COALESCE(s.score, 0)), 0, 0, NULL
        FROM seats s JOIN matches m ON m.id = s.match_id
        WHERE m.id IN ({finished}) AND s.user_id IS NOT NULL
        GROUP BY s.user_id, m.game"""
    )
    op.execute(
        f"""INSERT INTO opponent_stats (user_id, game, other_id, played, won, lost, drawn)
        SELECT a.user_id, m.game, b.user_id, COUNT(*),
               SUM(CASE WHEN a.rank < b.rank THEN 1 ELSE 0 END),
               SUM(CASE WHEN a.rank > b.rank THEN 1 ELSE 0 END),
               SUM(CASE WHEN a.rank = b.rank THEN 1 ELSE 0 END)
        FROM seats a JOIN seats b ON b.match_id = a.match_id AND b.user_id <> a.user_id
        JOIN matches m ON m.id = a.match_id
        WHERE m.id IN ({finished}) AND a.user_id IS NOT NULL AND b.user_id IS NOT NULL
        GROUP BY a.user_id, m.game, b.user_id"""
    )
    op.execute(
        f"""INSERT INTO game_tallies (game, players, key, count)
        SELECT game, players, 'matches', COUNT(*) FROM matches WHERE id IN ({finished})
        GROUP BY game, players"""
    )
    op.execute(
        f"""INSERT INTO game_tallies (game, players, key, count)
        SELECT m.game, m.players, 'win:' || CAST(s.seat AS VARCHAR(8)), COUNT(*)
        FROM seats s JOIN matches m ON m.id = s.match_id
        WHERE m.id IN ({finished}) AND s.rank = 1
        GROUP BY m.game, m.players, s.seat"""
    )
    op.execute(
        f"""INSERT INTO game_tallies (game, players, key, count)
        SELECT m.game, m.players, 'decisions', SUM(last.seq)
        FROM (SELECT match_id, MAX(seq) AS seq FROM moves GROUP BY match_id) last
        JOIN matches m ON m.id = last.match_id
        WHERE m.id IN ({finished})
        GROUP BY m.game, m.players"""
    )
    op.execute(
        """UPDATE player_game_stats SET best_rating = (
            SELECT MAX(h.mu_after - 3 * h.sigma_after) FROM rating_history h
            WHERE h.user_id = player_game_stats.user_id AND h.game = player_game_stats.game)"""
    )
    op.execute(f"INSERT INTO tallied_matches (match_id) {finished}")


def downgrade() -> None:
    op.drop_index("ix_rating_history_user_id_game_id", table_name="rating_history")
    op.drop_index("ix_seats_user_id_match_id", table_name="seats")
    for table in ("game_tallies", "opponent_stats", "player_game_stats", "tallied_matches", "blocks"):
        op.drop_table(table)
    op.drop_table("friendships")
