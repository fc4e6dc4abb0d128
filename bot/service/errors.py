"""Why the match service refused a request. Every message is safe to show the requester.

A refusal is a ``MatchError`` or, for a player acting out of turn, the engines' own
``games.base.NotYourTurn``: ``REFUSALS`` catches both.
"""

from __future__ import annotations

from games.base import NotYourTurn

__all__ = [
    "REFUSALS",
    "AlreadyPlayed",
    "ChallengeRefused",
    "InvalidMove",
    "MatchError",
    "MatchNotFound",
    "NotYourMatch",
    "NotYourTurn",
    "WrongStatus",
]


class MatchError(Exception):
    """A refused request; ``str(error)`` tells the user what is wrong and what is valid."""


class MatchNotFound(MatchError):
    """No such match, or none that the request could mean."""


class NotYourMatch(MatchError):
    """The user is not a player of the match (or not the one allowed this step)."""


class AlreadyPlayed(MatchError):
    """The match changed since the request was made: a double click or a race lost."""


class WrongStatus(MatchError):
    """The match is not in a state where this request makes sense (e.g. over, not yet accepted)."""


class InvalidMove(MatchError):
    """The game refused the input; the message comes from the rules engine."""


class ChallengeRefused(MatchError):
    """A challenge that may not be made (yourself, a bot account, too many open challenges)."""


REFUSALS = (MatchError, NotYourTurn)
"""What a use case raises to refuse a request, with a message for the requester."""
