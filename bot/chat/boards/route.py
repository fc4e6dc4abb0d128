"""Where a match's board update goes, decided once from what is known when it is decided.

Every REST call made with the bot token counts against Discord's limits; an interaction's own
response does not. So an update rides on the interaction that caused it wherever Discord allows,
edits the board through an interaction token while one is valid, and spends a bot-token call
only otherwise. A board buried under other messages is re-posted at the bottom (the re-post
mentions whom the match waits for: an edit notifies nobody), by bot token only within the
channel's post budget; when that is spent the board is edited in place, and the next update
re-posts it. A re-post costs a call more than an edit (the old board is deleted), so a board is
re-posted at most every other update of its match: in a busy channel, where every board is
buried again by the time its match moves, that is half a call more per move, not a whole one.

``plan`` is a pure function of ``Facts``: the Discord side gathers the facts, asks once, and
carries the plan out. Nothing is planned twice: what carries an update when its route cannot
(its interaction's token failed, the post budget was spent meanwhile) is the plan's own
``fallback``, and a board deleted by someone is posted anew.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Route(enum.Enum):
    """How the board is updated."""

    EDIT_IN_RESPONSE = "edit in the response"
    """Edit the message the button was pressed on, in the press's own response."""
    POST_IN_RESPONSE = "post in the response"
    """A new board (there was none), as the interaction's public response."""
    POST_BY_BOT = "post by bot token"
    """A new board (there was none), posted with the bot token."""
    EDIT_BY_HANDLE = "edit by interaction token"
    """Edit the board through the interaction whose response it is, while its token is valid."""
    EDIT_BY_BOT = "edit by bot token"
    """Edit the board with one bot-token call."""
    REPOST_IN_RESPONSE = "re-post in the response"
    """Post the board anew at the bottom as the interaction's response; delete the old one."""
    REPOST_BY_BOT = "re-post by bot token"
    """Post the board anew at the bottom with the bot token (within the channel's post budget);
    delete the old one."""
    WAIT = "wait for a press"
    """Nothing now: the match is reached only through interactions and none can carry the
    update; the next press on its message brings it up to date."""


class WaitingForPress(Exception):
    """A board update was not shown: its match is reached only through interactions, and none
    can carry it now (``Route.WAIT``). It stays owed; the next press on the match's message
    shows the match as it is then."""

    def __init__(self, match_id: int) -> None:
        super().__init__(f"match {match_id} waits for a press on its message")
        self.match_id = match_id


RIDING = frozenset({Route.EDIT_IN_RESPONSE, Route.POST_IN_RESPONSE, Route.REPOST_IN_RESPONSE})
"""The routes carried by the interaction's own response."""
BY_TOKEN = RIDING | {Route.EDIT_BY_HANDLE}
"""The routes carried with an interaction's token, which may fail (expired, already used)."""
POSTING = frozenset(
    {Route.POST_IN_RESPONSE, Route.POST_BY_BOT, Route.REPOST_IN_RESPONSE, Route.REPOST_BY_BOT}
)
"""The routes that post a new board message."""


@dataclass(frozen=True)
class Facts:
    """What decides a board update's route."""

    board: int | None
    """The board's message id; ``None`` when the match has none (yet, or any more)."""
    public: bool = False
    """An interaction caused the update, in the board's channel, not on a private message: its
    response may be the board. ``False`` for an update without an interaction."""
    on_board: bool = False
    """The interaction is a press of a button on the board message itself."""
    response_free: bool = False
    """The interaction's response may still carry the board (not yet used for anything but a
    deferral)."""
    handle: bool = False
    """A valid interaction token that can edit the board is known."""
    buried: bool = False
    """Enough messages were posted after the board that it should come back to the bottom."""
    reposted: bool = False
    """The match's previous update re-posted the board: this one edits it in place, buried or
    not, so that a board comes back to the bottom at most every other update."""
    budget: bool = False
    """A bot-token post in the board's channel is allowed now."""
    bot_token: bool = True
    """The bot's token reaches the board's channel (a server place); ``False`` where only
    interactions reach the match's message: no route then uses the bot's token."""


@dataclass(frozen=True)
class Plan:
    """A decided board update: its route, and the board message it edits or replaces."""

    route: Route
    board: int | None = None
    """The message edited (an edit) or replaced (a re-post); ``None`` for a first post."""
    bot_token: bool = True
    """Whether the bot's token reaches the board (``Facts.bot_token``): no fallback otherwise."""

    @property
    def rides_on_response(self) -> bool:
        """Whether the update is the interaction's own response (no bot-token call)."""
        return self.route in RIDING

    @property
    def posts(self) -> bool:
        """Whether the update posts a new board message."""
        return self.route in POSTING

    @property
    def spends_budget(self) -> bool:
        """Whether the update takes one of the channel's bot-token posts."""
        return self.route is Route.REPOST_BY_BOT

    @property
    def fallback(self) -> Plan | None:
        """What carries the update with the bot token when this route cannot: its interaction's
        token failed, or the channel's post budget was spent between the plan and its carrying
        out. A buried board is then edited in place, for a later update to re-post; ``None``
        where nothing else would do better (a bot-token route failed), and wherever the bot's
        token does not reach."""
        if not self.bot_token:
            return None
        if self.route is Route.POST_IN_RESPONSE:
            return Plan(Route.POST_BY_BOT)
        if self.route in BY_TOKEN or self.route is Route.REPOST_BY_BOT:
            return Plan(Route.EDIT_BY_BOT, self.board)
        return None


def plan(facts: Facts) -> Plan:
    """The route of a board update, from ``facts``."""
    riding = facts.public and facts.response_free
    board = facts.board
    if not facts.bot_token:
        return _by_interaction(facts, riding)
    if board is None:
        return Plan(Route.POST_IN_RESPONSE if riding else Route.POST_BY_BOT)
    buried = facts.buried and not facts.reposted
    if buried and riding:
        return Plan(Route.REPOST_IN_RESPONSE, board)
    if buried and facts.budget:
        return Plan(Route.REPOST_BY_BOT, board)
    if riding and facts.on_board:
        return Plan(Route.EDIT_IN_RESPONSE, board)
    # Buried with the budget spent: edited in place, and re-posted by a later update.
    return Plan(Route.EDIT_BY_HANDLE if facts.handle else Route.EDIT_BY_BOT, board)


def _by_interaction(facts: Facts, riding: bool) -> Plan:
    """A match reached only through interactions: its message is the challenge's response, and
    every update rides on a press on it, or on a fresh token of the interaction that last
    answered with it; otherwise it waits for the next press. Nothing is ever re-posted (the
    bot cannot delete a message there without a token)."""
    board = facts.board
    if board is None:
        return Plan(Route.POST_IN_RESPONSE if riding else Route.WAIT, bot_token=False)
    if riding and facts.on_board:
        return Plan(Route.EDIT_IN_RESPONSE, board, bot_token=False)
    if facts.handle:
        return Plan(Route.EDIT_BY_HANDLE, board, bot_token=False)
    return Plan(Route.WAIT, board, bot_token=False)
