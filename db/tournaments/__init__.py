"""The queries of tournaments, as plain async functions over a caller's session.

As in ``db.matches``, every function takes the ``AsyncSession`` first and never commits. A
tournament changes under a version check (``save_tournament``), so of two writers who read it at
the same version exactly one goes on; its rounds' announcements and its end are posted by the
process that claims them (``claim_round``, ``claim_end``) for a while, so a process that dies
while posting leaves them to be posted again once its claim has run out.

One module per part: ``rows`` (the tables and their rows as plain values), ``events`` (a
tournament, its entrants, rounds and pairings), ``matches`` (the matches that play its
pairings), ``posting`` (what is left to do, and the claims) and ``organizers``; every function
is also here, so ``from db import tournaments as q`` reaches them all.
"""

from __future__ import annotations

from db.tournaments.events import (
    add_entrant,
    entered,
    entrants,
    guild_tournaments,
    insert_pairings,
    insert_round,
    insert_tournament,
    link_match,
    load_tournament,
    lock_guild,
    pairings,
    ratings,
    record_result,
    remove_entrant,
    rounds,
    save_tournament,
    set_ratings,
    withdraw,
)
from db.tournaments.matches import (
    match_ends,
    member_match,
    unfinished_matches,
    unposted_matches,
)
from db.tournaments.organizers import (
    clear_organizer_role,
    organizer_role,
    set_organizer_role,
)
from db.tournaments.posting import (
    claim_end,
    claim_round,
    mark_announced,
    needing_attention,
    record_round_post,
    set_message_id,
)
from db.tournaments.rows import (
    EntrantRow,
    MatchEndRow,
    PairingRow,
    RoundRow,
    TournamentRow,
)

__all__ = [
    "EntrantRow",
    "MatchEndRow",
    "PairingRow",
    "RoundRow",
    "TournamentRow",
    "add_entrant",
    "claim_end",
    "claim_round",
    "clear_organizer_role",
    "entered",
    "entrants",
    "guild_tournaments",
    "insert_pairings",
    "insert_round",
    "insert_tournament",
    "link_match",
    "load_tournament",
    "lock_guild",
    "mark_announced",
    "match_ends",
    "member_match",
    "needing_attention",
    "organizer_role",
    "pairings",
    "ratings",
    "record_result",
    "record_round_post",
    "remove_entrant",
    "rounds",
    "save_tournament",
    "set_message_id",
    "set_organizer_role",
    "set_ratings",
    "unfinished_matches",
    "unposted_matches",
    "withdraw",
]
