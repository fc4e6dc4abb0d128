"""What ``/history`` and ``/replay`` show: a page of a member's matches, a step of a replay,
and their buttons as ``(label, custom_id, disabled)``; no interaction here.

Buttons carry everything a press needs (``history:<user>:<game>:<page>``,
``replay:<match>:<step>``, ``replay:<match>:file``), so a page left open works after a restart;
the server is always the one the press comes from.
"""

from __future__ import annotations

import discord

import games
from bot.chat import boards
from bot.chat.render import COLOUR, fit, jump_url, mention
from bot.service.history import HistoryPage, PastMatch
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
RESULTS = {"win": "won", "loss": "lost", "draw": "drew"}

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
    scope = f" · {games.get(page.game).title}" if page.game else ""
    embed = discord.Embed(title=f"History{scope} · page {page.page + 1}", colour=COLOUR)
    if not page.matches:
        none = "No finished matches" if page.page == 0 else "No more matches"
        embed.description = f"{mention(page.user_id)}\n{none} in this server."
        return embed
    lines = [mention(page.user_id)]
    lines += [_history_line(match, guild_id) for match in page.matches]
    embed.description = fit("\n".join(lines), EMBED_DESCRIPTION_MAX)
    embed.set_footer(text="Rating changes are for matches against members. /replay match:N")
    return embed


def _history_line(match: PastMatch, guild_id: int) -> str:
    opponent = "the bot" if match.vs_bot else mention(match.opponent_id)
    how = f" ({match.end_reason})" if match.end_reason else ""
    change = "" if match.rating_change is None else f" · {match.rating_change:+.0f}"
    when = "" if match.finished_at is None else f" · <t:{int(match.finished_at.timestamp())}:d>"
    link = jump_url(guild_id, match.channel_id, match.message_id)
    return (
        f"**#{match.id}** {games.get(match.game).title} vs {opponent}: "
        f"{RESULTS[match.result]}{how}{change}{when} · [board]({link})"
    )


def history_buttons(page: HistoryPage) -> Buttons:
    return [
        ("Prev", history_id(page.user_id, page.game, page.page - 1, "prev"), page.page == 0),
        ("Next", history_id(page.user_id, page.game, page.page + 1, "next"), not page.more),
    ]


# ---------------------------------------------------------------------- /replay


def replay_embed(replay: Replay, step: int) -> discord.Embed:
    """Step ``step`` of the replay: what was played, what happened, the board after it, and
    both players' secrets (the match is over)."""
    match = replay.match
    shown = replay.steps[max(0, min(step, len(replay.steps) - 1))]
    names = (mention(match.players[0]), mention(match.players[1]))
    last = len(replay.steps) - 1
    embed = discord.Embed(
        title=f"Replay · {replay.title} · match #{match.id} · step {shown.number} of {last}",
        colour=COLOUR,
    )
    if shown.number == 0:
        head = f"{names[0]} moves first against {names[1]}."
    elif shown.seat is None:
        head = "The match ends."
    else:
        head = f"{names[shown.seat]}: **{shown.move}**"
    parts = [head]
    parts += [line for text in shown.events for line in boards.wrap(text)]
    parts.append(boards.draw(shown.board, names))
    if replay.secrets:
        parts.append("Secrets: " + " ".join(replay.secrets))
    embed.description = fit("\n".join(parts), EMBED_DESCRIPTION_MAX)
    return embed


def replay_buttons(replay: Replay, step: int) -> Buttons:
    match_id, last = replay.match.id, len(replay.steps) - 1
    step = max(0, min(step, last))
    return [
        ("First", replay_id(match_id, 0, "first"), step == 0),
        ("Prev", replay_id(match_id, max(step - 1, 0), "prev"), step == 0),
        ("Next", replay_id(match_id, min(step + 1, last), "next"), step == last),
        ("Last", replay_id(match_id, last, "last"), step == last),
        ("Download", replay_id(match_id, FILE), False),
    ]
