"""Seasons, rank roles and honest leaderboards, in three parts.

Honest leaderboards: when each member was last rated in each game, and until when they rank.

``player_stats`` gains ``rated_at`` (the end of the member's last rated match of the game),
``deviation_at`` (the moment the stored deviation holds for; it grows from there) and
``ranked_until`` (when the member stops being ranked unless they play again), with an index the
ranked members are read from when they are rare at the top of a leaderboard; the leaderboard's
own index, ``ix_player_stats_ranking``, gains ``ranked_until`` and ``rated_at`` after its order,
so a deep page of any list is found from the index alone.

Carried forward: ``rated_at`` is the latest point of the member's rating history in that game
(each rated match's change, or the point 0010 dated when the record last changed), else their
latest finished match against a person there, else the record's last change. ``deviation_at``
is the upgrade itself: the deviation grows from the later of the last rated match and the
upgrade, so no rating shown, and no ``?``, changes at the moment of the upgrade.

``tournament_entrants`` gains ``provisional``: whether an entrant's seeding rating was
provisional, so it is seeded after the settled ones. Entrants of events already started were
seeded by rating alone, and are carried forward as settled, so their seeds stay as they were.
``queue_entries`` gains ``deviation`` (as it stood when the member joined, so a provisional one is
paired as such); members already waiting have none and are paired as before.
``ranked_until`` is worked out with the rules as they stand at this revision (below).

Seasons (docs/rules.md, "Seasons"): each server's seasons, their standings per game and
member, the podium posted when one ends, and the server's season settings.

A server's first season opens with the first rated match after the upgrade (the calendar
quarter it falls in, by default); no match played before counts in a season. ``guild_settings``
gains three nullable columns, so every server keeps its settings and reads the defaults for the
new ones (quarters, ranked by rating, no podium channel). Records and ratings are untouched.

Rank roles: the roles a server gives by rating, the roles Parlor gave, and the members whose
rank roles are still to be brought up to date.

``rank_roles`` holds each rank a server set (its game or ``best``, the rating it takes, its role,
whether a season's end brings it up to date), ``rank_grants`` each rank role Parlor gave a
member (the only roles it ever takes away), ``rank_updates`` the members whose roles are owed.
All three start empty: no server has ranks before the upgrade, so no record, rating or match
changes, and a match in play ends as before.

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-28
"""

import math
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from alembic import op

from db.models.base import UTCDateTime

revision: str = "0015"
down_revision: str | Sequence[str] | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    _upgrade_ladder()
    _upgrade_seasons()
    _upgrade_ranks()


def downgrade() -> None:
    _downgrade_ranks()
    _downgrade_seasons()
    _downgrade_ladder()


# The rules at this revision (bot/service/ratings.py), kept here so the upgrade stays as written.
SCALE = 173.7178
PROVISIONAL_DEVIATION = 110.0
RATING_PERIODS_PER_DAY = 0.21436
INACTIVE_AFTER = timedelta(days=30)

_STATS = sa.table(
    "player_stats",
    sa.column("guild_id", sa.BigInteger()),
    sa.column("game", sa.String()),
    sa.column("user_id", sa.BigInteger()),
    sa.column("vs_bot", sa.Boolean()),
    sa.column("deviation", sa.Float()),
    sa.column("volatility", sa.Float()),
    sa.column("games_played", sa.Integer()),
    sa.column("updated_at", UTCDateTime()),
    sa.column("rated_at", UTCDateTime()),
    sa.column("deviation_at", UTCDateTime()),
    sa.column("ranked_until", UTCDateTime()),
)
_HISTORY = sa.table(
    "rating_history",
    sa.column("guild_id", sa.BigInteger()),
    sa.column("game", sa.String()),
    sa.column("user_id", sa.BigInteger()),
    sa.column("at", UTCDateTime()),
)
_MATCHES = sa.table(
    "matches",
    sa.column("id", sa.Integer()),
    sa.column("guild_id", sa.BigInteger()),
    sa.column("game", sa.String()),
    sa.column("status", sa.String()),
    sa.column("vs_bot", sa.Boolean()),
    sa.column("finished_at", UTCDateTime()),
)
_PLAYERS = sa.table(
    "match_players", sa.column("match_id", sa.Integer()), sa.column("user_id", sa.BigInteger())
)
_KEY = ("guild_id", "game", "user_id", "vs_bot")


def _upgrade_ladder() -> None:
    with op.batch_alter_table("player_stats") as batch:
        batch.add_column(sa.Column("rated_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("deviation_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("ranked_until", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("queue_entries") as batch:
        batch.add_column(sa.Column("deviation", sa.Float(), nullable=True))
    with op.batch_alter_table("tournament_entrants") as batch:
        batch.add_column(
            sa.Column("provisional", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
    op.create_index(
        "ix_player_stats_ranked",
        "player_stats",
        ["guild_id", "game", "vs_bot", "ranked_until"],
    )

    bind = op.get_bind()
    rated = sa.and_(_STATS.c.vs_bot == sa.false(), _STATS.c.games_played > 0)
    from_history = (
        sa.select(sa.func.max(_HISTORY.c.at))
        .where(
            _HISTORY.c.guild_id == _STATS.c.guild_id,
            _HISTORY.c.game == _STATS.c.game,
            _HISTORY.c.user_id == _STATS.c.user_id,
        )
        .scalar_subquery()
    )
    from_matches = (
        sa.select(sa.func.max(_MATCHES.c.finished_at))
        .select_from(_MATCHES.join(_PLAYERS, _PLAYERS.c.match_id == _MATCHES.c.id))
        .where(
            _MATCHES.c.guild_id == _STATS.c.guild_id,
            _MATCHES.c.game == _STATS.c.game,
            _PLAYERS.c.user_id == _STATS.c.user_id,
            _MATCHES.c.status == "finished",
            _MATCHES.c.vs_bot == sa.false(),
        )
        .scalar_subquery()
    )
    bind.execute(sa.update(_STATS).where(rated).values(rated_at=from_history))
    missing = sa.and_(rated, _STATS.c.rated_at.is_(None))
    bind.execute(sa.update(_STATS).where(missing).values(rated_at=from_matches))
    bind.execute(sa.update(_STATS).where(missing).values(rated_at=_STATS.c.updated_at))

    upgraded = datetime.now(UTC)
    rows = bind.execute(
        sa.select(
            *(_STATS.c[name] for name in _KEY),
            _STATS.c.deviation,
            _STATS.c.volatility,
            _STATS.c.rated_at,
        ).where(_STATS.c.rated_at.is_not(None))
    ).all()
    if rows:
        bind.execute(
            sa.update(_STATS)
            .where(*(_STATS.c[name] == sa.bindparam(f"k_{name}") for name in _KEY))
            .values(deviation_at=upgraded, ranked_until=sa.bindparam("k_until")),
            [
                {
                    **{f"k_{name}": getattr(row, name) for name in _KEY},
                    "k_until": _ranked_until(
                        row.deviation, row.volatility, min(row.rated_at, upgraded), upgraded
                    ),
                }
                for row in rows
            ],
        )
    # The leaderboard's order carries the times the lists are told apart by, so a deep page
    # of any list walks the index alone; built once, after the rows are carried forward.
    op.drop_index("ix_player_stats_ranking", table_name="player_stats")
    op.create_index(
        "ix_player_stats_ranking", "player_stats", [*_RANKING, "ranked_until", "rated_at"]
    )


_RANKING = ("guild_id", "game", "vs_bot", sa.text("rating DESC"), sa.text("wins DESC"), "user_id")
"""``ix_player_stats_ranking`` as revision 0009 made it."""


def _ranked_until(
    deviation: float, volatility: float, rated_at: datetime, since: datetime
) -> datetime:
    """When the deviation, growing from ``since``, turns provisional, or the member turns
    inactive, whichever is first."""
    inactive = rated_at + INACTIVE_AFTER
    if deviation >= PROVISIONAL_DEVIATION:
        return min(since, inactive)
    if volatility <= 0.0:
        return inactive
    gap = (PROVISIONAL_DEVIATION / SCALE) ** 2 - (deviation / SCALE) ** 2
    days = gap / volatility**2 / RATING_PERIODS_PER_DAY
    if not math.isfinite(days) or days > INACTIVE_AFTER.days:
        return inactive
    return min(since + timedelta(days=days), inactive)


def _downgrade_ladder() -> None:
    op.drop_index("ix_player_stats_ranking", table_name="player_stats")
    op.create_index("ix_player_stats_ranking", "player_stats", list(_RANKING))
    op.drop_index("ix_player_stats_ranked", table_name="player_stats")
    with op.batch_alter_table("tournament_entrants") as batch:
        batch.drop_column("provisional")
    with op.batch_alter_table("queue_entries") as batch:
        batch.drop_column("deviation")
    with op.batch_alter_table("player_stats") as batch:
        batch.drop_column("ranked_until")
        batch.drop_column("deviation_at")
        batch.drop_column("rated_at")


def _upgrade_seasons() -> None:
    with op.batch_alter_table("guild_settings") as batch:
        batch.add_column(sa.Column("season_length", sa.String(length=12), nullable=True))
        batch.add_column(sa.Column("season_score", sa.String(length=8), nullable=True))
        batch.add_column(sa.Column("season_channel", sa.BigInteger(), nullable=True))
    op.create_table(
        "seasons",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("starts_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ends_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("state", sa.String(length=8), nullable=False),
        sa.Column("score", sa.String(length=8), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_seasons")),
        sa.UniqueConstraint("guild_id", "number", name=op.f("uq_seasons_guild_id_number")),
        sa.UniqueConstraint("guild_id", "starts_at", name=op.f("uq_seasons_guild_id_starts_at")),
    )
    op.create_index("ix_seasons_state_ends_at", "seasons", ["state", "ends_at"])
    op.create_table(
        "season_standings",
        sa.Column("season_id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=16), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("points", sa.Float(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("losses", sa.Integer(), nullable=False),
        sa.Column("draws", sa.Integer(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("deviation", sa.Float(), nullable=False),
        sa.Column("ranked_until", sa.DateTime(timezone=True), nullable=False),
        sa.Column("provisional", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["season_id"],
            ["seasons.id"],
            name=op.f("fk_season_standings_season_id_seasons"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("season_id", "game", "user_id", name=op.f("pk_season_standings")),
    )
    op.create_index(
        "ix_season_standings_points",
        "season_standings",
        [
            "season_id",
            "game",
            "provisional",
            sa.text("points DESC"),
            sa.text("wins DESC"),
            "user_id",
        ],
    )
    op.create_index(
        "ix_season_standings_rating",
        "season_standings",
        ["season_id", "game", "provisional", sa.text("rating DESC"), "user_id"],
    )
    op.create_index(
        "ix_season_standings_turning",
        "season_standings",
        ["season_id", "game", "provisional", "ranked_until"],
    )
    op.create_index(
        "ix_season_standings_turned", "season_standings", ["provisional", "ranked_until"]
    )
    op.create_table(
        "season_podiums",
        sa.Column("season_id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("message_id", sa.BigInteger(), nullable=True),
        sa.Column("posted", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["season_id"],
            ["seasons.id"],
            name=op.f("fk_season_podiums_season_id_seasons"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("season_id", name=op.f("pk_season_podiums")),
    )
    op.create_index("ix_season_podiums_due", "season_podiums", ["posted", "due_at"])


def _downgrade_seasons() -> None:
    op.drop_table("season_podiums")
    op.drop_table("season_standings")
    op.drop_table("seasons")
    with op.batch_alter_table("guild_settings") as batch:
        batch.drop_column("season_channel")
        batch.drop_column("season_score")
        batch.drop_column("season_length")


def _upgrade_ranks() -> None:
    op.create_table(
        "rank_roles",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("role_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("game", sa.String(length=16), nullable=False),
        sa.Column("rating", sa.Integer(), nullable=False),
        sa.Column("season", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("guild_id", "role_id", name=op.f("pk_rank_roles")),
    )
    op.create_index(
        "ix_rank_roles_guild_game", "rank_roles", ["guild_id", "game", "rating"], unique=True
    )
    op.create_table(
        "rank_grants",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("user_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("role_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("given_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("guild_id", "user_id", "role_id", name=op.f("pk_rank_grants")),
    )
    op.create_table(
        "rank_updates",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("user_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("attempts", sa.Integer(), server_default="0", nullable=False),
        sa.PrimaryKeyConstraint("guild_id", "user_id", name=op.f("pk_rank_updates")),
    )
    op.create_index("ix_rank_updates_due", "rank_updates", ["due_at"])


def _downgrade_ranks() -> None:
    op.drop_index("ix_rank_updates_due", table_name="rank_updates")
    op.drop_table("rank_updates")
    op.drop_table("rank_grants")
    op.drop_index("ix_rank_roles_guild_game", table_name="rank_roles")
    op.drop_table("rank_roles")
