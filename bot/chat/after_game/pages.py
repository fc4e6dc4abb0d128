"""What ``/history`` and ``/replay`` show: a page of a member's matches, a step of a replay,
and their buttons as ``(label, custom_id, disabled)``; no interaction here.

Buttons carry everything a press needs (``history:<user>:<game>:<page>``,
``replay:<match>:<step>``, ``replay:<match>:file``), so a page left open works after a restart;
the server is always the one the press comes from.
"""

from __future__ import annotations

import discord

import games
from bot.chat.boards import emoji as boards
from bot.chat.boards.render import COLOUR, fit, jump_url, mention
from bot.i18n import N_, _, formats
from bot.i18n.names import reason_name
from bot.service.member_history import HistoryPage, MemberMatch
from bot.service.replays import Replay

HISTORY = "history"
REPLAY = "replay"
EVERY_GAME = "all"
"""The game part of a history page's ``custom_id`` when no game was chosen."""
FILE = "file"
TAG = r"(?::[a-z]{1,8})?"
"""A button's own word at the end of its ``custom_id``: two buttons of a message may lead to
the same page (First and Prev on the second step), and Discord wants their ids to differ."""
HISTORY_TEMPLATE = (
    rf"{HISTORY}:(?P<user>[0-9]{{1,20}}):(?P<game>[a-z]{{1,16}}):(?P<page>[0-9]{{1,4}}){TAG}"
)
REPLAY_TEMPLATE = rf"{REPLAY}:(?P<replayed>[0-9]{{1,10}}):(?P<step>[0-9]{{1,4}}|{FILE}){TAG}"
EMBED_DESCRIPTION_MAX = 4096
RESULTS = {"win": N_("won"), "loss": N_("lost"), "draw": N_("drew")}

Buttons = list[tuple[str, str, bool]]


def history_id(user_id: int, game: str | None, page: int, tag: str = "") -> str:
    return _tagged(f"{HISTORY}:{user_id}:{game or EVERY_GAME}:{max(page, 0)}", tag)


def replay_id(match_id: int, step: int | str, tag: str = "") -> str:
    return _tagged(f"{REPLAY}:{match_id}:{step}", tag)


def _tagged(custom_id: str, tag: str) -> str:
    return f"{custom_id}:{tag}" if tag else custom_id


# ---------------------------------------------------------------------- /history


def history_embed(page: HistoryPage, guild_id: int) -> discord.Embed:
    """A page of the member's finished matches, newest first, each with a link to its board."""
    if page.game:
        title = _(
            "History · {game} · page {page}", game=_(games.get(page.game).title), page=page.page + 1
        )
    else:
        title = _("History · page {page}", page=page.page + 1)
    embed = discord.Embed(title=title, colour=COLOUR)
    if not page.matches:
        if page.page == 0:
            none = _("No finished matches in this server.")
        else:
            none = _("No more matches in this server.")
        embed.description = f"{mention(page.user_id)}\n{none}"
        return embed
    lines = [mention(page.user_id)]
    lines += [_history_line(match, guild_id) for match in page.matches]
    embed.description = fit("\n".join(lines), EMBED_DESCRIPTION_MAX)
    embed.set_footer(
        text=_(
            "Rating changes are for matches against members. Replay one with {command}.",
            command=formats.command("replay"),
        )
    )
    return embed


def _history_line(match: MemberMatch, guild_id: int) -> str:
    opponent = _("the bot") if match.vs_bot else mention(match.opponent_id)
    how = f" ({reason_name(match.end_reason)})" if match.end_reason else ""
    change = "" if match.rating_change is None else f" · {formats.signed(match.rating_change)}"
    when = "" if match.finished_at is None else f" · <t:{int(match.finished_at.timestamp())}:d>"
    link = jump_url(guild_id, match.channel_id, match.message_id)
    line = _(
        "**#{id}** {game} vs {opponent}: {result}",
        id=match.id,
        game=_(games.get(match.game).title),
        opponent=opponent,
        result=_(RESULTS[match.result]),
    )
    return f"{line}{how}{change}{when} · " + _("[board]({link})", link=link)


def history_buttons(page: HistoryPage) -> Buttons:
    return [
        (_("Prev"), history_id(page.user_id, page.game, page.page - 1, "prev"), page.page == 0),
        (_("Next"), history_id(page.user_id, page.game, page.page + 1, "next"), not page.more),
    ]


# ---------------------------------------------------------------------- /replay


def replay_embed(replay: Replay, step: int) -> discord.Embed:
    """Step ``step`` of the replay: what was played, what happened, the board after it, and
    both players' secrets (the match is over), worded here in the reader's language."""
    match = replay.match
    shown = replay.steps[max(0, min(step, len(replay.steps) - 1))]
    names = (mention(match.players[0]), mention(match.players[1]))
    last = len(replay.steps) - 1
    embed = discord.Embed(
        title=_(
            "Replay · {game} · match #{id} · step {step} of {last}",
            game=_(replay.title),
            id=match.id,
            step=shown.number,
            last=last,
        ),
        colour=COLOUR,
    )
    if shown.number == 0:
        head = _("{first} moves first against {second}.", first=names[0], second=names[1])
    elif shown.seat is None:
        head = _("The match ends.")
    else:
        head = f"{names[shown.seat]}: **{replay.game.word(shown.action)}**"
    parts = [head]
    parts += [line for event in shown.events for line in boards.wrap(event.render(names))]
    parts.append(boards.draw(shown.board, names))
    if replay.secrets:
        secrets = " ".join(event.render(names) for event in replay.secrets)
        parts.append(_("Secrets: {secrets}", secrets=secrets))
    embed.description = fit("\n".join(parts), EMBED_DESCRIPTION_MAX)
    return embed


def replay_buttons(replay: Replay, step: int) -> Buttons:
    match_id, last = replay.match.id, len(replay.steps) - 1
    step = max(0, min(step, last))
    return [
        (_("First"), replay_id(match_id, 0, "first"), step == 0),
        (_("Prev"), replay_id(match_id, max(step - 1, 0), "prev"), step == 0),
        (_("Next"), replay_id(match_id, min(step + 1, last), "next"), step == last),
        (_("Last"), replay_id(match_id, last, "last"), step == last),
        (_("Download"), replay_id(match_id, FILE), False),
    ]
