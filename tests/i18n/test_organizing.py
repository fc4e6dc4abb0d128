"""Tournaments, the queue, history, reviews, charts, /stats and /settings read in German and French
with no English left, and every text and button fits Discord's limits in every language.

English left over is read against ``organizing.po`` (``tests.i18n.leftover``: ``Turnier`` is
German, ``tournament`` is not; ``minutes`` is French as well as English). Game titles, moves and
engine events are worded by the games' catalogs, so only what this part of the bot words itself
is read here.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Iterable, Iterator
from dataclasses import asdict, replace
from datetime import UTC, datetime

import discord
import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

import games
from bot.chat.after_game import pages as history_texts
from bot.chat.after_game import rating_charts, review
from bot.chat.after_game.records import record_text
from bot.chat.boards import render, standings
from bot.chat.queue.commands import gone_text, offer_text, queue_button, queue_text
from bot.chat.refusals import say
from bot.chat.tournaments import posts as tournament_posts
from bot.chat.tournaments.buttons import signup_button
from bot.i18n import LOCALES, _, speaking
from bot.service.charts import RatingPoint, leaderboard_chart, rating_chart
from bot.service.match_parts import MatchParts
from bot.service.member_history import HistoryPage, HistoryService
from bot.service.replays import Replays
from bot.service.servers import ServerService
from bot.service.timeouts import Timeouts
from bot.service.tournaments.refusals import TournamentRefused
from bot.service.tournaments.service import tournament_service
from tests.chat.test_tournament_posts import BIG_ID, assert_fits, played_event
from tests.i18n.leftover import Leftover
from tests.service.conftest import ALICE, BOB, GUILD, Clock
from tests.service.test_charts import standing
from tests.service.test_history import crown_won_by_alice
from tests.service.test_matches import challenge
from tests.wording import public_said

READ = ("de", "fr")
"""The languages read for English left over."""
TIE_BREAKS = frozenset({"buchholz", "sonneborn", "berger"})
"""The tie-breaks are named for the people who devised them, in every language."""
LEFTOVER = Leftover(
    ("organizing",),
    shared={"de": TIE_BREAKS | {"details"}, "fr": TIE_BREAKS | {"final", "normal"}},
)
"""Words kept from English: the tie-breaks' names, the review's **Details** button in German,
and French's "classement final" and "niveau normal"."""

CONTENT_MAX = 2000
TITLE_MAX = 256
DESCRIPTION_MAX = 4096
FIELD_NAME_MAX = 256
FIELD_VALUE_MAX = 1024
FOOTER_MAX = 2048
LABEL_MAX = 80
THREAD_NAME_MAX = 100


def embed_texts(embed: discord.Embed, *, fields: bool = True) -> list[str | None]:
    shown: list[str | None] = [embed.title, embed.description, embed.footer.text]
    if fields:
        shown += [text for field in embed.fields for text in (field.name, field.value)]
    return shown


def assert_embed_fits(embed: discord.Embed) -> None:
    assert 0 < len(embed.title or "x") <= TITLE_MAX
    assert len(embed.description or "") <= DESCRIPTION_MAX
    assert len(embed.footer.text or "") <= FOOTER_MAX
    for field in embed.fields:
        assert 0 < len(field.name or "") <= FIELD_NAME_MAX
        assert 0 < len(field.value or "") <= FIELD_VALUE_MAX
    assert len(embed) <= 6000


def assert_labels_fit(labels: Iterable[str]) -> None:
    for label in labels:
        assert 0 < len(label) <= LABEL_MAX, label


def test_the_check_finds_english() -> None:
    """The reading itself: an English post is caught, its German translation passes."""
    view = played_event("swiss", 8)
    with speaking("en-US"):
        english = tournament_posts.end_content(view)
    with pytest.raises(AssertionError, match="tournament"):
        LEFTOVER.assert_none("de", [english])
    with speaking("de"):
        LEFTOVER.assert_none("de", [tournament_posts.end_content(view)])


# ---------------------------------------------------------------------- tournaments


def tournament_texts(format: str, players: int) -> Iterator[tuple[str, list[str | None]]]:
    """Every post of an event played to its end, as ``(what, texts)``, built in the language
    of the caller's context; checks each fits Discord as it goes."""
    view = played_event(format, players)  # type: ignore[arg-type]
    signup = replace(view, status="signup")
    for shown in (signup, replace(view, status="cancelled"), view):
        embed = tournament_posts.signup_embed(shown)
        assert_fits(embed)
        yield "sign-up", embed_texts(embed)
    embed = tournament_posts.standings_embed(signup)
    yield "sign-up standings", embed_texts(embed)
    for number in range(1, view.round + 1):
        for threaded in (True, False):
            content = tournament_posts.round_content(view, number, threaded=threaded)
            assert len(content) <= CONTENT_MAX
            yield "round", [content]
        embeds = tournament_posts.round_embeds(view, number)
        assert_fits(*embeds)
        yield "round embeds", [t for e in embeds for t in embed_texts(e)]
        name = tournament_posts.thread_name(view, number)
        assert 0 < len(name) <= THREAD_NAME_MAX
        yield "thread", [name]
    embed = tournament_posts.standings_embed(view)
    assert_fits(embed)
    yield "standings", embed_texts(embed)
    running = replace(view, status="running", winner_id=None)
    embed = tournament_posts.standings_embed(running)
    assert_fits(embed)
    yield "running", embed_texts(embed)
    for ended in (view, replace(view, winner_id=None)):
        content = tournament_posts.end_content(ended)
        assert len(content) <= CONTENT_MAX
        yield "end", [content]
    content = tournament_posts.cancelled_content(view, BIG_ID)
    yield "cancelled", [content]
    labels = [signup_button(view.id, verb).label or "" for verb in ("join", "leave")]
    assert_labels_fit(labels)
    yield "buttons", list(labels)


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("format", ["swiss", "round_robin", "knockout"])
def test_tournament_posts_fit_discord_in_every_language(locale: str, format: str) -> None:
    players = 16 if format == "round_robin" else 64
    with speaking(locale):
        for _what, _texts in tournament_texts(format, players):
            pass


@pytest.mark.parametrize("locale", READ)
@pytest.mark.parametrize("format", ["swiss", "round_robin", "knockout"])
def test_tournament_posts_have_no_english_left(locale: str, format: str) -> None:
    with speaking(locale):
        for _what, texts in tournament_texts(format, 8):
            LEFTOVER.assert_none(locale, texts)


def test_a_german_tournament_reads_german() -> None:
    view = played_event("swiss", 8)
    with speaking("de"):
        embed = tournament_posts.signup_embed(replace(view, status="signup"))
        assert embed.title == f"Turnier #12 · {_(view.title)}"
        assert "Drück **Beitreten**" in (embed.description or "")
        assert "`/tournament start`" in (embed.description or "")
        assert tournament_posts.round_content(view, 2, threaded=False).startswith(
            f"**Turnier #12 · {_(view.title)} · Schweizer System · Runde 2 von"
        )


def test_points_are_written_as_the_reader_writes_them() -> None:
    view = played_event("swiss", 8)
    table = "\n".join(tournament_posts._table_lines(view.table(view.round), view))
    halves = [r.points for r in view.table(view.round) if r.points % 1]
    assert halves, "the seeded event has a half point somewhere"
    with speaking("fr"):
        french = "\n".join(tournament_posts._table_lines(view.table(view.round), view))
    with speaking("de"):
        german = "\n".join(tournament_posts._table_lines(view.table(view.round), view))
    decimal = f"{halves[0]:g}"
    assert f"— {decimal} points" in table
    assert f"— {decimal.replace('.', ',')} points" in french
    assert f"— {decimal.replace('.', ',')} Punkte" in german


# ---------------------------------------------------------------------- the queue


def queue_texts() -> list[str]:
    texts = [queue_text("crown", n) for n in (0, 1, 5)]
    texts += [offer_text("crystal", level) for level in ("easy", "normal", "hard")]
    texts.append(gone_text())
    for text in texts:
        assert len(text) <= CONTENT_MAX
    return texts


def queue_labels() -> list[str]:
    buttons = [queue_button("join", "crown"), queue_button("leave", "crown"), queue_button("bot")]
    return [button.label or "" for button in buttons]


@pytest.mark.parametrize("locale", LOCALES)
def test_queue_texts_and_buttons_fit_in_every_language(locale: str) -> None:
    with speaking(locale):
        queue_texts()
        assert_labels_fit(queue_labels())


@pytest.mark.parametrize("locale", READ)
def test_queue_texts_have_no_english_left(locale: str) -> None:
    with speaking(locale):
        LEFTOVER.assert_none(locale, [*queue_texts(), *queue_labels()])
    with speaking("fr"):
        assert queue_labels() == ["Rejoindre", "Quitter", "Jouer contre moi"]


# ---------------------------------------------------------------------- after the game


class Shown:
    """What a member sees after Alice beat Bob at Capture the Crown, and Alice challenged Bob
    again: the built pieces, to word in any language."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession], clock: Clock) -> None:
        self.sessions, self.clock = sessions, clock

    async def gather(self, service: MatchParts) -> Shown:
        self.match_id = await crown_won_by_alice(service, self.clock)
        await challenge(service, "crystal")
        replays = Replays(self.sessions, clock=self.clock)
        self.histories = HistoryService(self.sessions, clock=self.clock)
        servers = ServerService(self.sessions, clock=self.clock)
        self.page = await self.histories.history(GUILD, ALICE)
        self.replay = await replays.replay(GUILD, self.match_id)
        self.review = await replays.review(GUILD, self.match_id)
        self.boards = await servers.leaderboards(GUILD, None, 3)
        self.board = await servers.leaderboards(GUILD, "crown", 10)
        self.record = await servers.member_record(GUILD, ALICE)
        self.unfinished = await service.lookups.unfinished(ALICE, GUILD)
        return self

    def texts(self) -> list[str | None]:
        """What this part of the bot words itself, built in the caller's language."""
        texts: list[str | None] = []
        embed = history_texts.history_embed(self.page, GUILD)
        assert_embed_fits(embed)
        texts += embed_texts(embed)
        empty = HistoryPage(GUILD, BOB, "safe", 0, (), False)
        texts += embed_texts(history_texts.history_embed(empty, GUILD))
        later = replace(empty, page=2)
        texts += embed_texts(history_texts.history_embed(later, GUILD))
        bot_match = replace(
            self.page.matches[0], vs_bot=True, rating_before=None, rating_after=None
        )
        texts.append(history_texts._history_line(bot_match, GUILD))
        last = len(self.replay.steps) - 1
        for step in (0, 1, last):
            embed = history_texts.replay_embed(self.replay, step)
            assert_embed_fits(embed)
            head = (embed.description or "").split("\n")[0]
            texts += [embed.title, head if step in (0, last) else None]
            if self.replay.secrets:
                texts.append((embed.description or "").split("\n")[-1].split(":")[0])
        summary = review.summary_embed(self.review)
        assert_embed_fits(summary)
        texts += [summary.title, summary.description, summary.footer.text]
        texts += [field.name for field in summary.fields]
        for move in self.review.review.moves:
            embed = review.move_embed(self.review, move)
            assert_embed_fits(embed)
            texts += [embed.title] + [field.name for field in embed.fields]
            texts.append(embed.fields[-1].value)
        for board, compact in ((self.boards, True), (self.board, False)):
            embed = standings.leaderboard_embed(board, compact=compact)
            assert_embed_fits(embed)
            texts += [embed.title, embed.footer.text]
            texts += [field.value for field in embed.fields]
        for game in (None, "crown"):
            embed = standings.record_embed(self.record, game=game)
            assert_embed_fits(embed)
            texts += embed_texts(embed)
        texts.append(render.games_list(self.unfinished, ALICE))
        texts.append(render.games_list([], ALICE))
        texts.append(render.games_list([], ALICE, in_server=False))
        texts.append(render.settings_text(asdict(Timeouts()), changed=False))
        texts.append(render.settings_text(asdict(Timeouts()), changed=True))
        record = record_text(self.replay, self.review.review).splitlines()
        blank = max(i for i, line in enumerate(record) if not line)
        texts += [*record[:4], record[5], record[blank + 1]]  # the heading, "Moves:", the result
        for text in texts:
            assert len(text or "") <= CONTENT_MAX
        return texts

    def labels(self) -> list[str]:
        last = len(self.replay.steps) - 1
        buttons = history_texts.history_buttons(self.page)
        buttons += history_texts.replay_buttons(self.replay, last // 2)
        buttons += review.page_buttons(self.review, 0) + review.page_buttons(self.review, 1)
        return [label for label, _custom_id, _disabled in buttons]


@pytest.fixture
async def shown(
    sessions: async_sessionmaker[AsyncSession], clock: Clock, service: MatchParts
) -> Shown:
    return await Shown(sessions, clock).gather(service)


@pytest.mark.parametrize("locale", LOCALES)
async def test_history_replays_reviews_and_stats_fit_in_every_language(
    shown: Shown, locale: str
) -> None:
    with speaking(locale):
        shown.texts()
        assert_labels_fit(shown.labels())


@pytest.mark.parametrize("locale", READ)
async def test_history_replays_reviews_and_stats_have_no_english_left(
    shown: Shown, locale: str
) -> None:
    with speaking(locale):
        LEFTOVER.assert_none(locale, [*shown.texts(), *shown.labels()])


async def test_a_french_review_and_history_read_french(shown: Shown) -> None:
    with speaking("fr"):
        summary = review.summary_embed(shown.review)
        page = history_texts.history_embed(shown.page, GUILD)
        labels = shown.labels()
        record = standings.record_embed(shown.record, game=None)
        title = _(shown.review.title)
    assert summary.title == f"Analyse · {title} · partie #{shown.match_id}"
    assert summary.description == f"<@{ALICE}> a gagné (capture)."
    assert (page.title or "").startswith("Historique · page 1")
    assert "contre" in (page.description or "") and "gagnée" in (page.description or "")
    assert labels[:2] == ["Préc.", "Suiv."]
    assert [field.name for field in record.fields][-2:] == ["Au total", "Dernières parties"]
    assert "1 V · 0 D · 0 N" in [field.value for field in record.fields]


async def test_the_record_file_is_written_in_the_readers_language(shown: Shown) -> None:
    with speaking("de"):
        german = record_text(shown.replay, shown.review.review)
        title = _(shown.replay.title)
    assert german.startswith(f"Parlor · {title} · Partie #{shown.match_id}\n")
    assert "Spieler: Alice (hat begonnen) und Bob" in german
    assert "Ergebnis: Alice hat gewonnen (Eroberung)" in german


# ---------------------------------------------------------------------- charts


async def test_a_members_chart_is_worded_in_the_readers_language(
    shown: Shown, clock: Clock
) -> None:
    """The chart ``/stats`` draws in German is the one drawn from German words; the English
    one differs."""
    series = await shown.histories.rating_series(GUILD, ALICE, None)
    with speaking("de"):
        german = await rating_charts.member_chart(shown.histories, GUILD, ALICE, None, "Alice")
        titled = {_(games.get(key).title): points for key, points in series.items()}
        expected = rating_chart(
            titled,
            title="Alice: Wertung",
            y_label="Wertung",
            band_label="wahrscheinlicher Bereich (± 2 Abweichungen)",
            until=clock(),
        )
    english = await rating_charts.member_chart(shown.histories, GUILD, ALICE, None, "Alice")
    assert german is not None and english is not None
    assert german.fp.read() == expected != english.fp.read()


async def test_the_top_chart_is_worded_in_the_readers_language(shown: Shown) -> None:
    standings = await shown.histories.top_ratings(GUILD, "crown")
    with speaking("fr"):
        french = await rating_charts.top_chart(shown.histories, GUILD, "crown")
        title = _("{game}: top ratings", game=_(games.get("crown").title))
    assert title.endswith(" : meilleures cotes")
    expected = leaderboard_chart(standings, title=title, x_label="Cote")
    assert french is not None and french.fp.read() == expected


def test_a_chart_has_no_words_of_its_own() -> None:
    """Every word on a chart is the caller's: drawn alike whatever language is read."""
    points = [RatingPoint(datetime(2026, 11, 1, tzinfo=UTC), 1500.0, 200.0)]
    top = [standing("Alice", 1600.0, 80.0), standing("Bob", 1450.0, 120.0)]
    with speaking("de"):
        german = rating_chart({"Crown": points})
        german_top = leaderboard_chart(top)
    assert german == rating_chart({"Crown": points})
    assert german != rating_chart({"Crown": points}, title="Wertung", band_label="Bereich")
    assert german_top == leaderboard_chart(top)
    assert german_top != leaderboard_chart(top, title="Bestwertungen")


# ---------------------------------------------------------------------- refusals


@pytest.mark.parametrize("locale", READ)
async def test_tournament_refusals_have_no_english_left(
    sessions: async_sessionmaker[AsyncSession], clock: Clock, service: MatchParts, locale: str
) -> None:
    tournaments = tournament_service(service)
    create = functools.partial(
        tournaments.create, guild_id=GUILD, channel_id=1, creator_id=ALICE, game="crown"
    )

    async def refusal(ask: Awaitable[object]) -> str:
        with pytest.raises(TournamentRefused) as refused:
            await ask
        return say(refused.value)

    with speaking(locale):
        refusals = [
            await refusal(create(may_organize=False, format="swiss")),
            await refusal(create(may_organize=True, format="knockout", rounds=3)),
            await refusal(tournaments.join(404, BOB, guild_id=GUILD)),
            await refusal(tournaments.find(GUILD, {1}, ["signup"])),
        ]
        view = await create(may_organize=True, format="swiss")
        refusals += [
            await refusal(tournaments.start(view.id, BOB, guild_id=GUILD, may_organize=False)),
            await refusal(tournaments.start(view.id, ALICE, guild_id=GUILD, may_organize=True)),
            await refusal(tournaments.leave(view.id, BOB, guild_id=GUILD)),
        ]
    LEFTOVER.assert_none(locale, refusals)
    assert len(set(refusals)) == len(refusals)


async def test_a_tournaments_boards_and_cancelling_are_worded_in_the_readers_language(
    sessions: async_sessionmaker[AsyncSession], clock: Clock, service: MatchParts
) -> None:
    """Round 1's board opens with the pairing's French heading and who moves first, and a
    cancelled event calls its match off in French."""
    tournaments = tournament_service(service)
    with speaking("fr"):
        view = await tournaments.create(
            guild_id=GUILD,
            channel_id=1,
            creator_id=ALICE,
            may_organize=True,
            game="crown",
            format="swiss",
        )
        for player in (ALICE, BOB):
            await tournaments.join(view.id, player, guild_id=GUILD)
        await tournaments.start(view.id, ALICE, guild_id=GUILD, may_organize=True)
        await tournaments.progress.claim_round(view.id)
        await tournaments.progress.record_round(view.id, 1, 1, 77)
        [report] = await tournaments.progress.start_matches(view.id)
        cancelled = await tournaments.cancel(view.id, ALICE, guild_id=GUILD, may_organize=True)
        [called_off] = cancelled.reports
        opening, ending = public_said(report), public_said(called_off)
    assert opening[0].startswith(f"Tournoi #{view.id}, ronde 1 : <@")
    assert opening[0].endswith("> commence.")
    assert opening[1].startswith("Aux deux joueurs : choisissez votre secret.")
    assert ending[0] == (
        f"Le tournoi #{view.id} a été annulé : cette partie est annulée, sans résultat."
    )
    LEFTOVER.assert_none("fr", [*opening[:2], ending[0]])  # then the game's own
