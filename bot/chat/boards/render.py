"""What members see: message texts, board embeds and button layouts, built from match snapshots.

No request is made here: texts, embeds and layouts are values. A layout is plain data (rows of
``Button``); ``bot.chat.matches.buttons`` turns it into a ``discord.ui.View``. Every button's
``custom_id`` is a ``Press``: ``game:match:version:verb[:arg]``, which is all a click needs to be
handled, even after a restart.

Public posts are built from a snapshot's public view only, so they cannot show a secret; private
posts (DM prompts, ephemeral pickers) use the member's own view.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import discord

import games
from bot.chat.boards import emoji as boards
from bot.chat.boards.calls import call_to_act
from bot.chat.boards.calls import mention as mention
from bot.chat.boards.lines import said
from bot.chat.components import NOT_YOUR_MATCH, Button, Layout, Post, Verb, press
from bot.chat.games import private_side
from bot.chat.matches import controls
from bot.i18n import N_, _
from bot.i18n.names import human, kind_name
from bot.service.lines import PublicLine
from bot.service.notices import MatchSnapshot, Private, Prompt
from games.base import Ask

__all__ = ["NOT_YOUR_MATCH"]


CONTENT_MAX = 2000
EMBED_DESCRIPTION_MAX = 4096
FIELD_VALUE_MAX = 1024

COLOUR = discord.Colour.blurple()
COLOUR_OVER = discord.Colour.dark_grey()
RESULTS = {"win": N_("win"), "loss": N_("loss"), "draw": N_("draw")}
"""A match's result for a member, as ``/stats`` lists it."""

# ---------------------------------------------------------------------- names and small texts


def fit(text: str, limit: int = CONTENT_MAX) -> str:
    """``text`` cut to ``limit`` characters, keeping its start and end."""
    if len(text) <= limit:
        return text
    head = limit // 3
    tail = limit - head - 3
    return f"{text[:head]}\n…\n{text[-tail:]}" if tail > 0 else text[:limit]


def title(snap: MatchSnapshot) -> str:
    return _("{game} · match #{id}", game=games.get(snap.game).title, id=snap.id)


def mention_channel(channel_id: int) -> str:
    return f"<#{channel_id}>"


def jump_url(guild_id: int, channel_id: int, message_id: int | None) -> str:
    """A link to a message (or to the channel when the message is unknown)."""
    base = f"https://discord.com/channels/{guild_id or '@me'}/{channel_id}"
    return f"{base}/{message_id}" if message_id else base


def names(snap: MatchSnapshot) -> tuple[str, str]:
    """How the board names the two players: their mentions, which Discord shows as each
    member's display name in the server."""
    if len(snap.players) == 2:
        return mention(snap.players[0]), mention(snap.players[1])
    return mention(snap.challenger_id), mention(snap.opponent_id)


def _deadline_text(snap: MatchSnapshot) -> str | None:
    if snap.deadline is None or snap.over:
        return None
    when = f"<t:{int(snap.deadline.timestamp())}:R>"
    kind = snap.deadline_kind or ""
    if kind == "challenge":
        return _("⏳ The challenge expires {when}.", when=when)
    if kind == "setup":
        return _("⏳ Secrets are due {when}.", when=when)
    if kind == "turn":
        return _("⏳ The move is due {when}.", when=when)
    if kind == "hint":
        return _("⏳ The hint is due {when}.", when=when)
    return _("⏳ Due {when}.", when=when)


# ---------------------------------------------------------------------- the board


def challenge_post(snap: MatchSnapshot, lines: Sequence[PublicLine]) -> Post:
    """The open challenge: Accept and Decline for the opponent, Withdraw for the challenger.
    A challenge open to anyone has no Decline, and pings nobody.

    It is the match's board from the start: accepting turns it into the first board.
    """
    text = fit("\n".join(map(said, lines)))
    accept = Button(_("Accept"), press(snap, Verb.ACCEPT), discord.ButtonStyle.success)
    withdraw = Button(_("Withdraw"), press(snap, Verb.WITHDRAW), discord.ButtonStyle.secondary)
    if snap.open_challenge:
        return Post(text, layout=((accept, withdraw),))
    decline = Button(_("Decline"), press(snap, Verb.DECLINE), discord.ButtonStyle.danger)
    layout: Layout = ((accept, decline, withdraw),)
    return Post(text, layout=layout, ping=(snap.opponent_id,))


def closed_challenge_post(snap: MatchSnapshot, lines: Sequence[PublicLine]) -> Post:
    """The challenge once declined, withdrawn or expired: what happened, no buttons."""
    shown = {"challenger": mention(snap.challenger_id), "game": games.get(snap.game).title}
    head = (
        _(
            "{challenger} challenged {opponent} to {game} (match #{id}).",
            opponent=mention(snap.opponent_id),
            id=snap.id,
            **shown,
        )
        if not snap.open_challenge
        else _(
            "{challenger} posted an open challenge to {game} (match #{id}).", id=snap.id, **shown
        )
    )
    return Post(fit("\n".join((head, *map(said, lines)))))


def board_post(snap: MatchSnapshot, lines: Sequence[PublicLine]) -> Post:
    """The match's one board: whom it waits for (or the result), the board, its buttons.

    ``lines`` say what just happened. ``ping`` names whom a re-post may notify: the members
    the match waits for.
    """
    if snap.status == "challenged" or (snap.over and not snap.players):
        return closed_challenge_post(snap, lines)
    content = call_to_act(snap) or ""  # once over, the result is in the embed, once
    layout = rematch_layout(snap) if snap.over else move_layout(snap) or controls.opening(snap)
    ping = () if snap.over else snap.to_act
    return Post(fit(content), board_embed(snap, lines), layout, ping)


def board_embed(snap: MatchSnapshot, lines: Sequence[PublicLine] = ()) -> discord.Embed:
    """The board as it now stands, from the public view (every secret once the match is over):
    the game's board and its key, what just happened, a short log, the deadline, the options.

    What just happened is kept to a phone's width (``last_text``); the log keeps an event a
    line, as it was said.
    """
    parts = []
    if snap.public_view is not None:
        board = games.get(snap.game).board(snap.public_view)
        parts.append(boards.draw(board, names(snap)))
    if lines:
        parts.append(last_text(lines))
    if snap.history:
        parts.append("\n".join(f"· {said(line)}" for line in snap.history))
    deadline = _deadline_text(snap)
    if deadline:
        parts.append(deadline)
    description = fit("\n\n".join(parts), EMBED_DESCRIPTION_MAX)
    colour = COLOUR_OVER if snap.over else COLOUR
    embed = discord.Embed(title=title(snap), description=description, colour=colour)
    options = options_text(snap.game, snap.options)
    if options:
        embed.set_footer(text=options)
    return embed


def last_text(lines: Sequence[PublicLine]) -> str:
    """``**Last:**`` and what just happened, an event a line, each broken to a phone's width."""
    words = [said(line) for line in lines]
    shown = [_("**Last:** {event}", event=words[0]), *words[1:]]
    return "\n".join(row for line in shown for row in boards.wrap(line))


def options_text(game: str, options: dict[str, Any]) -> str:
    """The options that differ from the game's defaults (``hidden: yes · size: 4``)."""
    if not options:
        return ""  # most matches: no defaults to build a game for
    engine = games.get(game)
    defaults = engine.options(engine.new({}, 0))
    shown = [
        f"{_option_name(key)}: {_option_value(value)}"
        for key, value in options.items()
        if value != defaults.get(key)
    ]
    return " · ".join(shown)


OPTION_NAMES = {
    "hints": N_("hints"),
    "size": N_("size"),
    "hidden": N_("hidden"),
    "digits": N_("digits"),
    "length": N_("length"),
    "max_guesses": N_("max guesses"),
}
"""The games' options as a board's footer names them (translated where shown)."""

OPTION_VALUES = {"defender": N_("defender"), "auto": N_("auto")}
"""Option values that are words (translated where shown)."""


def _option_name(key: str) -> str:
    return _(OPTION_NAMES[key]) if key in OPTION_NAMES else key.replace("_", " ")


def _option_value(value: Any) -> str:
    if value is True:
        return _("yes")
    if value is False:
        return _("no")
    if isinstance(value, str) and value in OPTION_VALUES:
        return _(OPTION_VALUES[value])
    return str(value)


def rematch_layout(snap: MatchSnapshot) -> Layout:
    """A Rematch button, unless the challenge was never accepted; and Review once finished."""
    if not snap.players:
        return ()
    rematch = Button(_("Rematch"), press(snap, Verb.REMATCH), discord.ButtonStyle.primary)
    if snap.status != "finished":
        return ((rematch,),)
    return ((rematch, Button(_("Review"), press(snap, Verb.REVIEW))),)


def move_layout(snap: MatchSnapshot) -> Layout:
    """Buttons for the next public move, or none when the match waits for something private."""
    if snap.status != "active" or len(snap.to_act) != 1:
        return ()
    uid = snap.to_act[0]
    if snap.asks.get(uid) is not Ask.ACTION:
        return ()
    seat = snap.seat_of(uid)
    assert seat is not None
    return controls.layout(snap, games.get(snap.game).controls(snap.public_view, seat))


# ---------------------------------------------------------------------- private posts


def prompt_post(prompt: Prompt, *, server: str, board: str) -> Post:
    """A DM (or ephemeral message) asking one member for a secret or a hint.

    It names the match, the opponent and the server (``board`` links to the match), and holds
    the picker buttons; typed answers are accepted in DMs too.
    """
    snap = prompt.match
    opponent = _opponent(prompt)
    shown = {"game": games.get(snap.game).title, "id": snap.id, "opponent": mention(opponent)}
    head = (
        _("**{game}, match #{id}** against {opponent} ([board]({link}))", link=board, **shown)
        if snap.by_interaction_only  # a DM or group DM: no server, and nothing typed is read
        else _(
            "**{game}, match #{id}** against {opponent} in **{server}**, {channel} "
            "([board]({link}))",
            server=server,
            channel=mention_channel(snap.channel_id),
            link=board,
            **shown,
        )
    )
    lines = [head, asking(prompt)]
    own = private_side(snap.game).own_secrets(prompt.view)
    if own:
        lines.append(own)
    if not snap.by_interaction_only:
        lines.append(_typed_hint(prompt))
    deadline = _deadline_text(snap)
    if deadline:
        lines.append(deadline)
    return Post(fit("\n".join(lines)), layout=prompt_layout(prompt))


def _opponent(prompt: Prompt) -> int:
    snap = prompt.match
    return next((uid for uid in snap.players if uid != prompt.user_id), snap.opponent_id)


def asking(prompt: Prompt) -> str:
    """What ``prompt`` asks its member for, naming their opponent."""
    title, who = games.get(prompt.match.game).title, mention(_opponent(prompt))
    if prompt.ask is Ask.HINT:
        return _("Your opponent {opponent} missed. Choose the hint you give.", opponent=who)
    if prompt.ask is Ask.SECRET:
        return _("Choose your secret for {game} against {opponent}.", game=title, opponent=who)
    return _("Your move in {game} against {opponent}.", game=title, opponent=who)


def _typed_hint(prompt: Prompt) -> str:
    if prompt.ask is Ask.HINT:
        return _("Press a button, or type `row` or `column` here.")
    if prompt.ask is Ask.SECRET:
        return private_side(prompt.match.game).secret_hint(prompt.match)
    return _("Press a button, or type your answer here.")


def prompt_layout(prompt: Prompt) -> Layout:
    """The member's private choices, drawn from their own view: a secret answers at once, a
    hint against the board's version."""
    if prompt.ask is Ask.ACTION or prompt.view is None:
        return ()
    choices = games.get(prompt.match.game).choices(prompt.view)
    play = Verb.SECRET if prompt.ask is Ask.SECRET else Verb.PLAY
    return controls.layout(prompt.match, choices, play=play, typed=Verb.CODE)


def dm_refused_post(prompt: Prompt) -> Post:
    """The channel message for a member whose DMs are closed: a button to answer privately here."""
    snap = prompt.match
    member = mention(prompt.user_id)
    if prompt.ask is Ask.HINT:
        text = _(
            "{member}, I could not send you a DM (your DMs are closed to me). Press the button "
            "to choose the hint you give here; only you will see it.",
            member=member,
        )
        label = _("Choose my hint")
    else:
        text = _(
            "{member}, I could not send you a DM (your DMs are closed to me). Press the button "
            "to choose your secret here; only you will see it.",
            member=member,
        )
        label = _("Choose my secret")
    layout: Layout = ((Button(label, press(snap, Verb.ASK), discord.ButtonStyle.primary),),)
    return Post(text, layout=layout, ping=(prompt.user_id,))


def private_text(notice: Private) -> str:
    """What the game tells one member only, in their language, naming the players."""
    text = notice.event.render([mention(uid) for uid in notice.match.players])
    return fit(_("Match #{id}: {text}", id=notice.match.id, text=text))


# ---------------------------------------------------------------------- lists


def games_list(snapshots: Iterable[MatchSnapshot], user_id: int, *, in_server: bool = True) -> str:
    """The member's unfinished matches, each with a link to its board (``in_server``: asked
    in a server, else in a DM or group DM, which list the matches played outside servers)."""
    lines = []
    for snap in snapshots:
        opponent = snap.opponent_id if snap.challenger_id == user_id else snap.challenger_id
        state = _unfinished_state(snap, user_id)
        link = jump_url(snap.guild_id, snap.channel_id, snap.message_id)
        line = _(
            "• {game} #{id} vs {opponent}: {state}",
            game=_(games.get(snap.game).title),
            id=snap.id,
            opponent=mention(opponent),
            state=state,
        )
        lines.append(f"{line} · {link}")
    if not lines and not in_server:
        return _("You have no unfinished matches outside servers.")
    if not lines:
        return _("You have no unfinished matches in this server.")
    return fit("\n".join(lines))


def _unfinished_state(snap: MatchSnapshot, user_id: int) -> str:
    """Where an unfinished match stands for the member, as ``/games`` lists it."""
    if snap.status == "active":
        if snap.asks.get(user_id) is Ask.HINT:
            return _("your hint")
        return _("your move") if user_id in snap.to_act else _("waiting for the other player")
    if snap.status == "challenged":
        return _("challenge open")
    if snap.status == "setup":
        return _("choosing secrets")
    return snap.status


def settings_text(current: dict[str, int], changed: bool) -> str:
    head = _("Settings saved.") if changed else _("This server's timeouts:")
    rows = [f"• {kind_name(kind)}: {human(seconds)}" for kind, seconds in current.items()]
    return "\n".join([head, *rows])
