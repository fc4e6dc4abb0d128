"""Tournaments: events, their entrants, rounds and games; a server's organizer role.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-26
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON_DOCUMENT = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
TIMESTAMP = sa.DateTime(timezone=True)


def upgrade() -> None:
    # New tables only: the matches, records and settings already stored are left as they are.
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("creator_id", sa.BigInteger(), nullable=False),
        sa.Column("game", sa.String(length=16), nullable=False),
        sa.Column("options", JSON_DOCUMENT, nullable=False),
        sa.Column("format", sa.String(length=16), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=True),
        sa.Column("max_players", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("message_id", sa.BigInteger(), nullable=True),
        sa.Column("winner_id", sa.BigInteger(), nullable=True),
        sa.Column("announced", sa.Boolean(), nullable=False),
        sa.Column("claimed_until", TIMESTAMP, nullable=True),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.Column("updated_at", TIMESTAMP, nullable=False),
        sa.Column("finished_at", TIMESTAMP, nullable=True),
        sa.CheckConstraint(
            "status IN ('signup', 'running', 'finished', 'cancelled')",
            name=op.f("ck_tournaments_status"),
        ),
        sa.CheckConstraint(
            "format IN ('swiss', 'round_robin', 'knockout')", name=op.f("ck_tournaments_format")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournaments")),
    )
    op.create_index("ix_tournaments_guild_status", "tournaments", ["guild_id", "status"])
    op.create_index("ix_tournaments_status_announced", "tournaments", ["status", "announced"])

    op.create_table(
        "tournament_entrants",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("joined_at", TIMESTAMP, nullable=False),
        sa.Column("rating", sa.Float(), nullable=True),
        sa.Column("withdrawn", sa.String(length=16), nullable=True),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_tournament_entrants_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("tournament_id", "user_id", name=op.f("pk_tournament_entrants")),
    )
    op.create_index("ix_tournament_entrants_user", "tournament_entrants", ["user_id"])

    op.create_table(
        "tournament_rounds",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("entrants", JSON_DOCUMENT, nullable=True),
        sa.Column("channel_id", sa.BigInteger(), nullable=True),
        sa.Column("message_id", sa.BigInteger(), nullable=True),
        sa.Column("claimed_until", TIMESTAMP, nullable=True),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_tournament_rounds_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("tournament_id", "number", name=op.f("pk_tournament_rounds")),
    )

    op.create_table(
        "tournament_games",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("board", sa.Integer(), nullable=False),
        sa.Column("replay", sa.Integer(), nullable=False),
        sa.Column("seat0", sa.BigInteger(), nullable=False),
        sa.Column("seat1", sa.BigInteger(), nullable=True),
        sa.Column("match_id", sa.Integer(), nullable=True),
        sa.Column("ended", sa.Boolean(), nullable=False),
        sa.Column("score0", sa.Float(), nullable=True),
        sa.Column("lapsed0", sa.Boolean(), nullable=False),
        sa.Column("lapsed1", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.id"],
            name=op.f("fk_tournament_games_match_id_matches"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_tournament_games_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournament_games")),
        sa.UniqueConstraint("match_id", name=op.f("uq_tournament_games_match_id")),
        sa.UniqueConstraint(
            "tournament_id",
            "round",
            "board",
            "replay",
            name=op.f("uq_tournament_games_tournament_id_round_board_replay"),
        ),
    )
    op.create_index("ix_tournament_games_ended_match", "tournament_games", ["ended", "match_id"])

    op.create_table(
        "guild_organizers",
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("role_id", sa.BigInteger(), nullable=False),
        sa.Column("updated_at", TIMESTAMP, nullable=False),
        sa.PrimaryKeyConstraint("guild_id", name=op.f("pk_guild_organizers")),
    )


def downgrade() -> None:
    for table in (
        "guild_organizers",
        "tournament_games",
        "tournament_rounds",
        "tournament_entrants",
        "tournaments",
    ):
        op.drop_table(table)
