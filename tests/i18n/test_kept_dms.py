"""A private event the outbox keeps for a DM sent again later: kept as data, worded for its
reader when it is sent, and the words an earlier release kept shown as they are."""

from __future__ import annotations

import games
from bot.i18n import speaking
from bot.service.lines import kept_event, kept_text
from tests.wording import said

NAMES = ("<@11>", "<@22>")
GUILD = 7


def test_a_kept_private_event_is_worded_in_its_readers_language() -> None:
    engine = games.get("safe")
    state = engine.new({}, 1)
    state, events = engine.apply(state, 0, engine.parse(state, 0, "123"))
    [secret] = [event for event in events if event.audience == 0]
    text = kept_text(GUILD, secret, NAMES)
    kept = kept_event(text)
    assert kept is not None and kept.guild_id == GUILD and kept.told.event == secret
    for locale in ("en-US", "de", "pt-BR"):
        with speaking(locale):
            assert said(kept.told) == secret.render(NAMES)
    assert "Your code" not in text  # data, not the words of the language it was saved in
    with speaking("de"):
        assert said(kept.told) == "Dein Code ist 1-2-3."


def test_words_an_earlier_release_kept_are_not_read_as_data() -> None:
    assert kept_event("<@11> has set their code.") is None
    assert kept_event("42") is None
