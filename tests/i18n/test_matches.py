"""The match flow reads in German and French with no English left, and fits Discord's limits in
every language: challenges, refusals, the lines a board shows, DM prompts, timeouts.

English left over is read against ``matches.po`` (``tests.i18n.leftover``). Game titles and
engine events are worded by the games' catalogs, so only what the match flow words itself is
read here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from bot.chat.boards import render
from bot.chat.matches.answers import done_text
from bot.chat.matches.called_off import called_off_text
from bot.chat.refusals import say
from bot.chat.shared_commands import rules_text
from bot.i18n import LOCALES, speaking
from bot.service.errors import REFUSALS
from bot.service.lines import PublicLine, Saying
from bot.service.match_parts import MatchParts
from bot.service.notices import Prompt, Report
from games.base import Ask
from games.worded import Worded
from tests.i18n.leftover import Leftover
from tests.service.conftest import ALICE, BOB, CAROL, CHANNEL, GUILD, Clock, deadlines_for
from tests.service.test_history import PARLOR
from tests.wording import said, said_all

READ = ("de", "fr")
"""The languages read for English left over."""
LEFTOVER = Leftover(("matches",))

CONTENT_MAX = 2000
LABEL_MAX = 80
EMBED_MAX = 6000


async def refused(step: Awaitable[object]) -> str:
    try:
        await step
    except REFUSALS as error:
        return say(error)
    raise AssertionError("the request was not refused")


class Flow:
    """A match flow run in the language of the caller's context: what its members are told
    (refusals), what its boards show (public lines) and what it asks by DM (prompts)."""

    def __init__(self, service: MatchParts, clock: Clock) -> None:
        self.service, self.clock = service, clock
        self.refusals: list[str] = []
        self.reports: list[Report] = []

    async def refuse(self, step: Callable[[], Awaitable[object]]) -> None:
        self.refusals.append(await refused(step()))

    async def report(self, step: Awaitable[Report]) -> Report:
        report = await step
        self.reports.append(report)
        return report

    @property
    def lines(self) -> list[PublicLine]:
        return [line for report in self.reports for line in report.public_lines()]

    @property
    def prompts(self) -> list[Prompt]:
        return [n for report in self.reports for n in report.notices if isinstance(n, Prompt)]

    async def run(self) -> Flow:
        service = self.service

        def challenge(opponent: int | None = BOB, **more: object) -> Awaitable[Report]:
            return service.challenges.challenge(
                guild_id=GUILD,
                channel_id=CHANNEL,
                challenger_id=ALICE,
                opponent_id=opponent,
                game="crown",
                **more,  # type: ignore[arg-type]
            )

        await self.refuse(lambda: challenge(ALICE))
        await self.refuse(lambda: challenge(CAROL, opponent_is_bot=True))
        await self.refuse(lambda: challenge(level="hard"))
        await self.refuse(lambda: challenge(PARLOR, level="wizard"))
        await self.refuse(lambda: service.lookups.snapshot(404))
        await self.refuse(lambda: service.lookups.find_match(GUILD, CHANNEL, "crown", ALICE))

        declined = (await self.report(challenge())).match.id
        await self.refuse(lambda: service.challenges.accept(declined, CAROL))
        await self.refuse(lambda: service.challenges.withdraw(declined, BOB))
        await self.refuse(lambda: service.play.submit(declined, ALICE, "1 1"))
        await self.refuse(lambda: service.challenges.rematch(declined, ALICE))
        await self.report(service.challenges.decline(declined, BOB))
        await self.refuse(lambda: service.challenges.accept(declined, BOB))
        await self.refuse(lambda: service.play.resign(declined, ALICE))
        await self.refuse(lambda: service.challenges.rematch(declined, CAROL))

        withdrawn = (await self.report(challenge(None))).match.id
        await self.refuse(lambda: service.challenges.decline(withdrawn, BOB))
        await self.refuse(lambda: service.challenges.accept(withdrawn, ALICE))
        await self.report(service.challenges.withdraw(withdrawn, ALICE))

        match_id = (await self.report(challenge())).match.id
        await self.report(service.challenges.accept(match_id, BOB))
        await self.refuse(lambda: service.lookups.prompt(match_id, CAROL))
        await self.refuse(lambda: service.play.submit(match_id, CAROL, "1 1"))
        await self.refuse(
            lambda: service.play.submit(match_id, ALICE, "1 1", answering=(Ask.ACTION,))
        )
        await self.report(service.play.submit(match_id, ALICE, "1 1"))
        await self.refuse(lambda: service.lookups.prompt(match_id, ALICE))
        await self.report(service.play.submit(match_id, BOB, "3 3"))
        await self.refuse(lambda: service.play.submit(match_id, BOB, "2 2"))
        await self.report(service.play.submit(match_id, ALICE, "2 2"))
        await self.refuse(lambda: service.play.submit(match_id, ALICE, "2 3"))
        await self.refuse(
            lambda: service.play.submit(match_id, BOB, "row", answering=(Ask.SECRET,))
        )
        self.clock.advance(minutes=3)  # Bob's hint is late: I choose it for him
        self.reports += await deadlines_for(service).sweep()
        await self.report(service.play.resign(match_id, BOB))
        await self.refuse(lambda: service.play.resign(match_id, ALICE))
        await self.refuse(lambda: service.play.submit(match_id, ALICE, "1 2"))

        called_off = (await self.report(challenge())).match.id
        await self.report(service.challenges.accept(called_off, BOB))
        await self.report(service.play.resign(called_off, ALICE))

        timed_out = (await self.report(challenge())).match.id
        await self.report(service.challenges.accept(timed_out, BOB))
        expired = (await self.report(challenge(None))).match.id
        self.clock.advance(minutes=6)
        self.reports += await deadlines_for(service).sweep()
        assert (await service.lookups.snapshot(expired)).status == "aborted"
        assert (await service.lookups.snapshot(timed_out)).status == "aborted"
        return self


async def flow_in(locale: str, service: MatchParts, clock: Clock) -> Flow:
    with speaking(locale):
        return await Flow(service, clock).run()


def shown(flow: Flow) -> list[str]:
    """Every text the flow words itself, as its reader sees it, worded in the current
    language: refusals, prompts and the board's lines it words (those the engines' events word
    are the games' catalogs')."""
    prompts = [render.asking(p) for p in flow.prompts]
    lines = [said(line) for line in flow.lines if isinstance(line, Saying | Worded)]
    return [*flow.refusals, *lines, *prompts]


@pytest.mark.parametrize("locale", READ)
async def test_the_match_flow_has_no_english_left(
    locale: str, service: MatchParts, clock: Clock
) -> None:
    flow = await flow_in(locale, service, clock)
    assert len(flow.refusals) > 20 and flow.lines and flow.prompts
    with speaking(locale):
        LEFTOVER.assert_none(locale, shown(flow))


def test_the_check_finds_english() -> None:
    with pytest.raises(AssertionError, match="challenge"):
        LEFTOVER.assert_none("de", ["<@11> declined the challenge."])
    with pytest.raises(AssertionError, match="challenge"):
        LEFTOVER.assert_none("de", ["<@11> hat die challenge abgelehnt."])
    LEFTOVER.assert_none("de", ["<@11> hat die Herausforderung abgelehnt."])


async def test_a_german_member_is_refused_in_german(service: MatchParts, clock: Clock) -> None:
    flow = await flow_in("de", service, clock)
    assert "Du kannst dich nicht selbst herausfordern: Wähle ein anderes Mitglied." in (
        flow.refusals
    )
    assert "Es gibt keine Partie #404." in flow.refusals
    assert any(r.startswith("Diese Partie ist vorbei (aufgegeben)") for r in flow.refusals)


async def test_board_lines_and_prompts_are_worded_again_for_their_reader(
    service: MatchParts, clock: Clock
) -> None:
    """The service words a board's lines and a DM prompt when it saves the use case, in the
    language of the member who acted; each screen words them again for its own reader."""
    flow = await flow_in("en-US", service, clock)
    line = flow.reports[0].public_lines()[0]
    assert said(line).startswith("<@22>, <@11> challenges you to ")
    with speaking("fr"):
        assert said(line).startswith("<@22>, <@11> te défie à ")
    with speaking("de"):
        prompt = render.asking(flow.prompts[0])
    assert prompt.startswith("Wähle dein Geheimnis für ") and " gegen <@" in prompt
    assert "did not answer in time, so I chose for them" in " ".join(said_all(flow.lines))
    with speaking("pt-BR"):
        assert any("não respondeu a tempo" in said(line) for line in flow.lines)


@pytest.mark.parametrize("locale", LOCALES)
async def test_the_match_flow_fits_discord_in_every_language(
    locale: str, service: MatchParts, clock: Clock
) -> None:
    flow = await flow_in(locale, service, clock)
    with speaking(locale):
        for text in shown(flow):
            assert 0 < len(text) <= CONTENT_MAX
        for report in flow.reports:
            snap = report.match
            lines = report.public_lines()
            post = (
                render.challenge_post(snap, lines)
                if snap.status == "challenged"
                else render.board_post(snap, lines)
            )
            assert len(post.content) <= CONTENT_MAX
            assert post.embed is None or len(post.embed) <= EMBED_MAX
            for row in post.layout:
                for button in row:
                    assert 0 < len(button.label) <= LABEL_MAX, button.label
        for prompt in flow.prompts:
            post = render.prompt_post(prompt, server="A server", board="https://discord.com/x")
            assert 0 < len(post.content) <= CONTENT_MAX
            for row in post.layout:
                for button in row:
                    assert 0 < len(button.label) <= LABEL_MAX, button.label


@pytest.mark.parametrize("locale", LOCALES)
async def test_what_the_discord_side_says_of_a_match_fits_and_is_translated(
    locale: str, service: MatchParts, clock: Clock
) -> None:
    flow = await flow_in("en-US", service, clock)
    snap = flow.reports[0].match
    with speaking(locale):
        texts = [
            done_text(snap, "https://discord.com/channels/1/2/3"),
            called_off_text(snap, "hidden"),
        ]
    for text in texts:
        assert 0 < len(text) <= CONTENT_MAX
    if locale in READ:
        LEFTOVER.assert_none(locale, texts)
    if locale == "fr":
        assert texts[1].startswith("La partie n° 1 (")
        assert "je ne vois plus ce salon" in texts[1]


def test_the_rules_name_commands_in_the_readers_language() -> None:
    with speaking("de"):
        text = rules_text("crown", [])
    assert text.endswith("verliert. Mit `/resign` gibst du auf.")
    with speaking("fr"):
        assert "`/resign` permet d'abandonner." in rules_text("safe", [])
