"""What tournaments need of a match as columns, and which tournament a match belongs to.

``acted_seats`` (a bit per seat that acted at least once) and ``called_off_by`` (the member who
called the match off before it started) were read back out of the event log's payloads;
``tournament_id`` saves a join on every move. Each is filled in from the rows already there, so
a match in play, or one finished before the upgrade, counts as it did.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-26
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_MATCHES = sa.table(
    "matches",
    sa.column("id", sa.Integer()),
    sa.column("acted_seats", sa.Integer()),
    sa.column("called_off_by", sa.BigInteger()),
    sa.column("tournament_id", sa.Integer()),
)
_EVENTS = sa.table(
    "match_events",
    sa.column("match_id", sa.Integer()),
    sa.column("seat", sa.Integer()),
    sa.column("kind", sa.String()),
    sa.column("payload", sa.JSON()),
)
_GAMES = sa.table(
    "tournament_games",
    sa.column("match_id", sa.Integer()),
    sa.column("tournament_id", sa.Integer()),
)


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("acted_seats", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("called_off_by", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("tournament_id", sa.Integer(), nullable=True))
    _fill_in()


def _fill_in() -> None:
    bind = op.get_bind()
    for seat in (0, 1):
        acted = (
            sa.select(_EVENTS.c.match_id)
            .where(
                _EVENTS.c.match_id == _MATCHES.c.id,
                _EVENTS.c.seat == seat,
                _EVENTS.c.kind.like("action:%"),
            )
            .exists()
        )
        bind.execute(
            sa.update(_MATCHES)
            .where(acted)
            .values(acted_seats=_MATCHES.c.acted_seats + (1 << seat))
        )
    aborts = bind.execute(
        sa.select(_EVENTS.c.match_id, _EVENTS.c.payload).where(_EVENTS.c.kind == "abort")
    )
    called_off = [
        {"match": match_id, "by": payload["by"]}
        for match_id, payload in aborts
        if isinstance(payload, dict) and isinstance(payload.get("by"), int)
    ]
    if called_off:
        bind.execute(
            sa.update(_MATCHES)
            .where(_MATCHES.c.id == sa.bindparam("match"))
            .values(called_off_by=sa.bindparam("by")),
            called_off,
        )
    owner = (
        sa.select(_GAMES.c.tournament_id)
        .where(_GAMES.c.match_id == _MATCHES.c.id)
        .scalar_subquery()
    )
    bind.execute(sa.update(_MATCHES).values(tournament_id=owner))


def downgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("tournament_id")
        batch.drop_column("called_off_by")
        batch.drop_column("acted_seats")
