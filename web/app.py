"""The site: routes, handlers and templates, over sessions of the bot's database.

Every page of a server lives under ``/s/<token>/``; a token that matches no server whose pages
are on, a player with no record there and a match not finished there all get the same plain 404.
Pages are HTML rendered on the server with Jinja2; the one script only adds keys to the replay.
"""

from __future__ import annotations

import asyncio
import hashlib
import mimetypes
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
from aiohttp import web
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

import games
from bot.i18n import current_locale, speaking
from bot.i18n import server_language as language_of
from bot.service.ratings import INACTIVE_AFTER
from db import site as queries
from db.languages import server_language
from db.models import utcnow
from db.records import SECTIONS
from db.site import Site
from web import boards, controls, ids, pages, replay, season_page, security, texts
from web.charts import ChartFiles, RatingHistory, chart_name, chart_version

PAGE_CACHE = "private, max-age=30"
"""Leaderboards and players change as matches end: a browser may keep a page half a minute, and
no shared cache may keep it at all (its address holds the server's token)."""
MATCH_CACHE = "private, max-age=86400"
"""A finished match never changes."""
STATIC_CACHE = "public, max-age=31536000, immutable"
"""Static files are addressed by a hash of their content: kept for good at their address."""
STATIC_OTHER_CACHE = "no-cache"
"""A static file asked for without its current version (an old page's address, or none): the
browser asks again each time, so it never keeps an old version for the new one's address."""


@dataclass(frozen=True)
class Static:
    body: bytes
    content_type: str
    version: str


@dataclass
class Shared:
    """What the handlers share, kept on the application."""

    sessions: async_sessionmaker[AsyncSession]
    templates: jinja2.Environment
    statics: dict[str, Static]
    charts: ChartFiles
    history: RatingHistory | None
    clock: Callable[[], datetime] = utcnow
    """What time it is: ratings are shown as they stand then."""
    pending: set[asyncio.Task[Any]] = field(default_factory=set)


SITE = web.AppKey("site", Shared)


def load_statics() -> dict[str, Static]:
    """The stylesheet and script, read once, each with a version from its content."""
    found = {}
    for entry in resources.files("web").joinpath("static").iterdir():
        body = entry.read_bytes()
        kind = mimetypes.guess_type(entry.name)[0] or "application/octet-stream"
        found[entry.name] = Static(body, kind, hashlib.sha256(body).hexdigest()[:12])
    return found


def make_app(
    sessions: async_sessionmaker[AsyncSession],
    *,
    chart_folder: Path,
    requests_per_minute: int = 120,
    trusted_proxies: str = "",
    history: RatingHistory | None = None,
    clock: Callable[[], datetime] = utcnow,
) -> web.Application:
    """The site's application over ``sessions``; ``history`` gives rating points for charts
    (None: no charts); ``clock`` the time ratings are shown at."""
    statics = load_statics()
    templates = jinja2.Environment(
        loader=jinja2.PackageLoader("web", "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
        extensions=["jinja2.ext.i18n"],
    )
    # Texts read ``{{ _("English {x}", x=...) }}``, the same as in Python; they are in the
    # language the page is rendered in (``_on_site``).
    templates.install_gettext_callables(  # type: ignore[attr-defined]
        gettext=texts.gettext, ngettext=texts.ngettext, newstyle=False
    )
    templates.globals["n_"] = texts.ngettext
    templates.globals["static"] = lambda name: f"/static/{name}?v={statics[name].version}"
    templates.globals["when"] = texts.when
    templates.globals["days"] = texts.days
    limit = security.RateLimit(requests_per_minute)
    app = web.Application(
        middlewares=[security.guard(limit, security.trusted_networks(trusted_proxies))]
    )
    app[SITE] = Shared(sessions, templates, statics, ChartFiles(chart_folder), history, clock)
    app.router.add_get("/", front)
    app.router.add_get("/static/{name}", static)
    app.router.add_get("/s/{token:[A-Za-z0-9_-]{1,64}}", to_home)
    app.router.add_get("/s/{token}/", home)
    app.router.add_get("/s/{token}/g/{game}", leaderboard)
    app.router.add_get("/s/{token}/p/{player}", player)
    app.router.add_get("/s/{token}/p/{player}/{game}.png", chart)
    app.router.add_get("/s/{token}/m/{match:[0-9]{1,18}}", match)
    app.router.add_get("/s/{token}/season", season)
    app.router.add_get("/s/{token}/season/{number:[0-9]{1,6}}", season)
    app.on_cleanup.append(_finish_charts)
    return app


async def _finish_charts(app: web.Application) -> None:
    pending = app[SITE].pending | set(app[SITE].charts.drawing.values())
    if pending:
        await asyncio.gather(*pending, return_exceptions=True)
    app[SITE].charts.close()


Handler = Callable[[web.Request, AsyncSession, Site], Awaitable[web.StreamResponse]]


def _on_site(handler: Handler) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
    """The handler run for the server whose token the address holds, in its language (its
    chosen one, else its preferred locale, else English); a 404 for any other."""

    async def run(request: web.Request) -> web.StreamResponse:
        async with request.app[SITE].sessions() as session:
            found = await _site(request, session)
            if found is None:
                return security.not_found()
            with speaking(found[1]):
                return await handler(request, session, found[0])

    return run


async def _site(request: web.Request, session: AsyncSession) -> tuple[Site, str] | None:
    """The server whose token the address holds and the language its pages are in; None for
    a token of no server whose pages are on."""
    token = request.match_info["token"]
    if len(token) > 64:
        return None
    found = await queries.site_by_token(session, queries.token_hash(token))
    if found is None:
        return None
    return found, language_of(*await server_language(session, found.guild_id))


def _page(request: web.Request, template: str, cache: str, **values: Any) -> web.Response:
    """The page rendered, with its ETag; a 304 when the browser has it already."""
    base = f"/s/{request.match_info['token']}"
    games_shown = [(name, engine.title) for name, engine in games.GAMES.items()]
    body = (
        request.app[SITE]
        .templates.get_template(template)
        .render(
            base=base, lang=current_locale(), games=games_shown, titles=dict(games_shown), **values
        )
        .encode()
    )
    etag = hashlib.sha256(body).hexdigest()[:32]
    headers = {"Cache-Control": cache, "ETag": f'"{etag}"'}
    if etag in request.headers.get("If-None-Match", ""):
        return web.Response(status=304, headers=headers)
    return web.Response(body=body, content_type="text/html", charset="utf-8", headers=headers)


def _number(text: str | None, default: int) -> int | None:
    """A small whole number from the query string; None for anything else."""
    if text is None:
        return default
    return int(text) if text.isdigit() and len(text) <= 6 else None


async def front(request: web.Request) -> web.Response:
    return security.plain(
        200, "Parlor: each server's pages are at the link /settings web:on gives its managers."
    )


async def static(request: web.Request) -> web.Response:
    found = request.app[SITE].statics.get(request.match_info["name"])
    if found is None:
        return security.not_found()
    current = request.query.get("v") == found.version
    headers = {
        "Cache-Control": STATIC_CACHE if current else STATIC_OTHER_CACHE,
        "ETag": f'"{found.version}"',
    }
    if found.version in request.headers.get("If-None-Match", ""):
        return web.Response(status=304, headers=headers)
    return web.Response(body=found.body, content_type=found.content_type, headers=headers)


async def to_home(request: web.Request) -> web.Response:
    """``/s/TOKEN``, as a link pasted without its last slash: to the server's first page."""
    location = f"/s/{request.match_info['token']}/"
    return web.Response(status=308, text=f"{location}\n", headers={"Location": location})


@_on_site
async def home(request: web.Request, session: AsyncSession, site: Site) -> web.StreamResponse:
    boards = await pages.home(session, site, request.app[SITE].clock())
    return _page(request, "home.html", PAGE_CACHE, boards=boards)


@_on_site
async def leaderboard(
    request: web.Request, session: AsyncSession, site: Site
) -> web.StreamResponse:
    game = request.match_info["game"]
    page = _number(request.query.get("page"), 1)
    section = request.query.get("list", "ranked")
    if game not in games.GAMES or not page or section not in SECTIONS:
        return security.not_found()
    now = request.app[SITE].clock()
    board = await pages.leaderboard(session, site, game, page, section=section, now=now)
    if not board.rows and page > 1:
        return security.not_found()
    return _page(
        request, "leaderboard.html", PAGE_CACHE, board=board, inactive_days=INACTIVE_AFTER.days
    )


@_on_site
async def player(request: web.Request, session: AsyncSession, site: Site) -> web.StreamResponse:
    user_id = ids.user_id(site.player_key, request.match_info["player"])
    if user_id is None:
        return security.not_found()
    shared = request.app[SITE]
    points = {} if shared.history is None else await shared.history(session, site.guild_id, user_id)
    found = await pages.player(session, site, user_id, points, shared.clock())
    if found is None:
        return security.not_found()
    for shown in found.charts:  # drawn while the page travels, ready when the image is asked
        name = chart_name(site.guild_id, user_id, shown.game, points[shown.game])
        shared.charts.chart(name, games.get(shown.game).title, points[shown.game])
    return _page(request, "player.html", PAGE_CACHE, player=found)


async def chart(request: web.Request) -> web.StreamResponse:
    """A member's rating chart in one game. The points are read and the session closed before
    the chart is drawn: on SQLite the pool holds one connection, which a drawing of a good
    part of a second must not keep from everyone else."""
    shared = request.app[SITE]
    game = request.match_info["game"]
    if game not in games.GAMES or shared.history is None:
        return security.not_found()
    async with shared.sessions() as session:
        found = await _site(request, session)
        if found is None:
            return security.not_found()
        site, language = found
        user_id = ids.user_id(site.player_key, request.match_info["player"])
        if user_id is None:
            return security.not_found()
        points = (await shared.history(session, site.guild_id, user_id)).get(game)
    if not points:
        return security.not_found()
    with speaking(language):
        name = chart_name(site.guild_id, user_id, game, points)
        version = chart_version(name)
        headers = {"Cache-Control": PAGE_CACHE, "ETag": f'"{version}"'}
        if version in request.headers.get("If-None-Match", ""):
            return web.Response(status=304, headers=headers)
        png = await shared.charts.chart(name, games.get(game).title, points)
    if png is None:
        return security.not_found()
    return web.Response(body=png, content_type="image/png", headers=headers)


@_on_site
async def season(request: web.Request, session: AsyncSession, site: Site) -> web.StreamResponse:
    """The server's running season (its newest), or an earlier one by number; a page that
    says so when none has started."""
    asked = request.match_info.get("number")
    found = await season_page.season(session, site, None if asked is None else int(asked), utcnow())
    if found is None and asked is not None:
        return security.not_found()
    return _page(request, "season.html", PAGE_CACHE, season=found)


@_on_site
async def match(request: web.Request, session: AsyncSession, site: Site) -> web.StreamResponse:
    step = _number(request.query.get("step"), 0)
    found = await pages.match(session, site, int(request.match_info["match"]))
    if found is None or step is None or step >= len(found.steps):
        return security.not_found()
    names = (found.players[0].name, found.players[1].name)
    engine = games.get(found.game)
    drawn = replay.board(engine, found.steps[step])
    board = boards.shown(drawn, names)
    after = found.steps[step + 1] if step + 1 < len(found.steps) else None
    played = (after.seat, after.action) if after is not None else (None, "")
    offered = controls.offered(engine, found.steps[step].state, played)
    return _page(
        request,
        "match.html",
        MATCH_CACHE,
        match=found,
        step=found.steps[step],
        board=board,
        offered=offered,
    )
