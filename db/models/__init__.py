"""The tables Parlor keeps, one module for each concern: what every table builds on (``base``),
a match and what hangs off it (``matches``), records and ratings (``records``), a server's
settings, web pages and the bot's own values (``servers``), what the bot awaits by DM
(``dms``), puzzles (``puzzles``), the quick-pair queue (``queue``), rank roles (``ranks``),
tournaments (``tournaments``) and seasons (``seasons``).

Importing the package imports every table module, so ``Base.metadata`` (which Alembic compares
the migrations with) holds every table, and ``from db.models import Match`` finds any of them.
"""

from db.models.base import JSON_DOCUMENT, NAMING_CONVENTION, Base, UTCDateTime, utcnow
from db.models.dms import DmAnswer, DmPrompt
from db.models.matches import (
    NAME_LENGTH,
    OPEN_OPPONENT,
    UNFINISHED_STATUSES,
    Match,
    MatchEvent,
    MatchOrigin,
    MatchPlace,
    MatchPlayer,
    MatchReview,
    MatchStatus,
    OutboxEntry,
)
from db.models.puzzles import (
    PUBLIC_POOL,
    DailyPuzzle,
    Puzzle,
    PuzzleAttempt,
    PuzzleRating,
    PuzzleSource,
)
from db.models.queue import QueueBoard, QueueEntry
from db.models.ranks import BEST, RankGrant, RankRole, RankUpdate
from db.models.records import (
    DEFAULT_DEVIATION,
    DEFAULT_RATING,
    DEFAULT_VOLATILITY,
    PlayerStats,
    RatingChange,
)
from db.models.seasons import (
    Season,
    SeasonLength,
    SeasonPodium,
    SeasonScore,
    SeasonStanding,
    SeasonState,
)
from db.models.servers import BotMeta, GuildSettings, MemberLocale, WebSite
from db.models.tournaments import (
    GuildOrganizers,
    Tournament,
    TournamentEntrant,
    TournamentGame,
    TournamentRound,
    TournamentStatus,
)

__all__ = [
    "BEST",
    "DEFAULT_DEVIATION",
    "DEFAULT_RATING",
    "DEFAULT_VOLATILITY",
    "JSON_DOCUMENT",
    "NAME_LENGTH",
    "NAMING_CONVENTION",
    "OPEN_OPPONENT",
    "PUBLIC_POOL",
    "UNFINISHED_STATUSES",
    "Base",
    "BotMeta",
    "DailyPuzzle",
    "DmAnswer",
    "DmPrompt",
    "GuildOrganizers",
    "GuildSettings",
    "Match",
    "MatchEvent",
    "MatchOrigin",
    "MatchPlace",
    "MatchPlayer",
    "MatchReview",
    "MatchStatus",
    "MemberLocale",
    "OutboxEntry",
    "PlayerStats",
    "Puzzle",
    "PuzzleAttempt",
    "PuzzleRating",
    "PuzzleSource",
    "QueueBoard",
    "QueueEntry",
    "RankGrant",
    "RankRole",
    "RankUpdate",
    "RatingChange",
    "Season",
    "SeasonLength",
    "SeasonPodium",
    "SeasonScore",
    "SeasonStanding",
    "SeasonState",
    "Tournament",
    "TournamentEntrant",
    "TournamentGame",
    "TournamentRound",
    "TournamentStatus",
    "UTCDateTime",
    "WebSite",
    "utcnow",
]
