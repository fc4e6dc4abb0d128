"""Initial schema: matches, their players and events, stats, guild settings, bot metadata.

Revision ID: 0001
Revises:
Create Date: 2026-11-25
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON_DOCUMENT = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
TIMESTAMP = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "matches",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("game", sa.String(length=16), nullable=False),
        sa.Column("options", JSON_DOCUMENT, nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("state", JSON_DOCUMENT, nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("deadline", TIMESTAMP, nullable=True),
        sa.Column("deadline_kind", sa.String(length=16), nullable=True),
        sa.Column("challenger_id", sa.BigInteger(), nullable=False),
        sa.Column("opponent_id", sa.BigInteger(), nullable=False),
        sa.Column("vs_bot", sa.Boolean(), nullable=False),
        sa.Column("bot_level", sa.String(length=8), nullable=True),
        sa.Column("message_id", sa.BigInteger(), nullable=True),
        sa.Column("winner_seat", sa.Integer(), nullable=True),
        sa.Column("end_reason", sa.String(length=16), nullable=True),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.Column("updated_at", TIMESTAMP, nullable=False),
        sa.Column("finished_at", TIMESTAMP, nullable=True),
        sa.CheckConstraint(
            "status IN ('challenged', 'setup', 'active', 'finished', 'aborted')",
            name=op.f("ck_matches_status"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_matches")),
    )
    op.create_index("ix_matches_status_deadline", "matches", ["status", "deadline"])
    op.create_index(
        "ix_matches_guild_channel_game_status",
        "matches",
        ["guild_id", "channel_id", "game", "status"],
    )
    op.create_index("ix_matches_challenger_status", "matches", ["challenger_id", "status"])
    op.create_index("ix_matches_opponent_status", "matches", ["opponent_id", "status"])
    op.create_index(
        "ix_matches_guild_status_finished", "matches", ["guild_id", "status", "finished_at"]
    )

    op.create_table(
        "match_players",
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.CheckConstraint("seat IN (0, 1)", name=op.f("ck_match_players_seat")),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.id"],
            name=op.f("fk_match_players_match_id_matches"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("match_id", "seat", name=op.f("pk_match_players")),
        sa.UniqueConstraint("match_id", "user_id", name=op.f("uq_match_players_match_id_user_id")),
    )
    op.create_index("ix_match_players_user_match", "match_players", ["user_id", "match_id"])

    op.create_table(
        "match_events",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("audience", sa.Integer(), nullable=True),
        sa.Column("payload", JSON_DOCUMENT, nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.id"],
            name=op.f("fk_match_events_match_id_matches"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_match_events")),
        sa.UniqueConstraint("match_id", "seq", name=op.f("uq_match_events_match_id_seq")),
    )

    op.create_table(
        "player_stats",
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("game", sa.String(length=16), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("vs_bot", sa.Boolean(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("losses", sa.Integer(), nullable=False),
        sa.Column("draws", sa.Integer(), nullable=False),
        sa.Column("streak", sa.Integer(), nullable=False),
        sa.Column("best_streak", sa.Integer(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("deviation", sa.Float(), nullable=False),
        sa.Column("volatility", sa.Float(), nullable=False),
        sa.Column("games_played", sa.Integer(), nullable=False),
        sa.Column("updated_at", TIMESTAMP, nullable=False),
        sa.PrimaryKeyConstraint(
            "guild_id", "game", "user_id", "vs_bot", name=op.f("pk_player_stats")
        ),
    )
    op.create_index(
        "ix_player_stats_leaderboard", "player_stats", ["guild_id", "game", "vs_bot", "rating"]
    )
    op.create_index("ix_player_stats_guild_user", "player_stats", ["guild_id", "user_id"])

    op.create_table(
        "guild_settings",
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("turn_timeout", sa.Integer(), nullable=True),
        sa.Column("setup_timeout", sa.Integer(), nullable=True),
        sa.Column("challenge_timeout", sa.Integer(), nullable=True),
        sa.Column("hint_timeout", sa.Integer(), nullable=True),
        sa.Column("updated_at", TIMESTAMP, nullable=False),
        sa.PrimaryKeyConstraint("guild_id", name=op.f("pk_guild_settings")),
    )

    op.create_table(
        "bot_meta",
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.Column("updated_at", TIMESTAMP, nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_bot_meta")),
    )


def downgrade() -> None:
    # Dropping a table drops its indexes; children go before the matches they point at.
    for table in (
        "bot_meta",
        "guild_settings",
        "player_stats",
        "match_events",
        "match_players",
        "matches",
    ):
        op.drop_table(table)
