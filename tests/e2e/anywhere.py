"""The steps and checks a match outside servers takes, shared by its tests (the members and
the table are in ``anywhere_fixtures``)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

from bot.chat.components import Press, Verb

from .fake_discord import FakeInteraction, FakeMessage, FakeUser

if TYPE_CHECKING:
    from .bot_fixtures import Table


async def challenge(
    group: Table, challenger: FakeUser, opponent: FakeUser, game: str
) -> FakeMessage:
    """``/<game> challenge`` in the group DM, and the opponent's Accept: the challenge, the
    command's public response, becomes the board."""
    mark = group.checkpoint()
    answered = await group.slash(challenger, f"{game} challenge", opponent=opponent)
    (message,) = answered.messages
    assert not message.ephemeral and "challenges you" in message.content
    accepted = await group.click(opponent, message, Verb.ACCEPT)
    await group.fake.wait_for_response(accepted)
    board = await group.posted("Coin toss", after=mark)
    assert board.id == message.id and "accepted" in board.text
    return board


def button(message: FakeMessage, verb: str, arg: str) -> str:
    """The custom_id of the message's button doing ``verb`` with ``arg``."""
    found = [
        c for c in message.custom_ids if (p := Press.parse(c)) and (p.verb, p.arg) == (verb, arg)
    ]
    assert found, f"no {verb!r} {arg!r} button on the message"
    return found[0]


def assert_no_secret_leaked(
    group: Table, caplog: pytest.LogCaptureFixture, *secrets: str, typed: tuple[str, ...] = ()
) -> None:
    """No secret in the group DM's public messages (every version, button ids too) or logs."""
    public = group.public_text()
    logged = "\n".join(record.getMessage() for record in caplog.records)
    for secret in secrets:
        assert secret not in public, f"{secret!r} is public before the end"
    for secret in (*secrets, *typed):
        pattern = rf"(?<!\d){re.escape(secret)}(?!\d)"  # not inside an id
        assert not re.search(pattern, logged), f"{secret!r} was logged"


def assert_no_bot_token_call(group: Table, since: int) -> None:
    """Since ``since``, no request with the bot's token to the group DM, no DM, no refusal."""
    refused = [
        str(r) for r in group.fake.requests[since:] if r.bot_token and (r.status or 0) >= 400
    ]
    assert not refused, f"bot-token requests refused: {refused}"
    calls = group.bot_calls(since)
    assert not calls.board, f"bot-token calls in the group DM: {calls.board}"
    assert not calls.dms, f"DMs sent: {calls.dms}"


async def choose(group: Table, who: FakeUser, board: FakeMessage, verb: str, arg: str) -> None:
    """Open one's own prompt from the match's message, privately, and press ``arg`` in it."""
    opened = await group.click(who, board, Verb.ASK)
    # The answer: the picker, privately (after the message is brought up to date, when no
    # token of the match is fresh).
    (picker,) = await group.fake.wait_until(
        lambda: opened.ephemeral_messages, what="the private picker"
    )
    assert picker.ephemeral and "server" not in picker.content
    chosen = await group.click(who, picker, verb, arg)
    await group.fake.wait_for_response(chosen)
    await group.closed(picker)


async def submit_form(
    group: Table, who: FakeUser, opened_on: FakeMessage, verb: str, text: str
) -> FakeInteraction:
    """Press the message's ``verb`` button, which opens a form, and submit ``text`` in it."""
    opened = await group.click(who, opened_on, verb)
    await group.fake.wait_for_response(opened)
    assert opened.modal is not None
    (field,) = opened.modal_text_inputs
    submitted = await group.fake.submit_modal(
        who, opened, opened.modal["custom_id"], {field["custom_id"]: text}
    )
    await group.fake.wait_for_response(submitted)
    return submitted


async def pick_trap(group: Table, who: FakeUser, board: FakeMessage, cell: str) -> None:
    opened = await group.click(who, board, Verb.TRAP)
    (picker,) = await group.fake.wait_until(
        lambda: opened.ephemeral_messages, what="the private picker"
    )
    chosen = await group.click(who, picker, Verb.PLAY, cell)
    await group.fake.wait_for_response(chosen)
