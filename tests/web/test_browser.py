"""The pages in a real browser: Debian's Chromium driven by Playwright, against the site served
on 127.0.0.1. Each page type loads and is saved as a screenshot under the test's temporary
folder; a replay is stepped through with the keyboard, and without JavaScript by its links.

Without a Chromium the tests are skipped, saying so; under CI (``CI=true``) they fail instead,
since CI installs one (``.ci/run``).
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from tests.web.conftest import ALICE, Server, player_key
from web import ids

CHROMIUM = os.environ.get("PARLOR_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

try:
    from playwright.async_api import Browser, Page, async_playwright
except ImportError:  # pragma: no cover - the dev dependencies include it
    async_playwright = None  # type: ignore[assignment]


def _missing() -> str | None:
    if async_playwright is None:
        return "Playwright for Python is not installed (pip install playwright)"
    if shutil.which(CHROMIUM) is None:
        return f"no Chromium at {CHROMIUM} (apt-get install chromium): browser tests skipped"
    return None


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    missing = _missing()
    if missing is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI runs the browser tests: {missing}")
        pytest.skip(missing)
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield launched
        finally:
            await launched.close()


MakeServer = Callable[[web.Application], Awaitable[TestServer]]


@pytest.fixture
async def site(aiohttp_server: MakeServer, app: web.Application, server: Server) -> str:
    """The site's address with the test server's token: ``http://127.0.0.1:PORT/s/TOKEN``."""
    running = await aiohttp_server(app)
    return str(running.make_url(f"/s/{server.token}"))


async def _open(page: Page, url: str) -> list[str]:
    """Go to ``url``; the console's errors (a blocked script or style shows there)."""
    errors: list[str] = []
    page.on(
        "console", lambda message: errors.append(message.text) if message.type == "error" else None
    )
    response = await page.goto(url)
    assert response is not None and response.status == 200
    return errors


async def test_each_page_type_loads_and_is_saved_as_a_screenshot(
    browser: Browser, site: str, server: Server, tmp_path: Path,
    sessions: async_sessionmaker[AsyncSession],
) -> None:  # fmt: skip
    key = ids.player_id(await player_key(sessions, server.token), ALICE)
    pages = {
        "home": f"{site}/",
        "leaderboard": f"{site}/g/crown?list=provisional",
        "player": f"{site}/p/{key}",
        "match": f"{site}/m/{server.finished[0]}?step=3",
        "season": f"{site}/season",
    }
    for scheme in ("light", "dark"):
        context = await browser.new_context(
            color_scheme=scheme, viewport={"width": 1000, "height": 800}
        )
        page = await context.new_page()
        for name, url in pages.items():
            errors = await _open(page, url)
            assert errors == [], f"{name}: {errors}"
            assert await page.locator("h1").count() == 1
            assert await page.locator("table caption").count() >= 1
            await page.screenshot(path=tmp_path / f"{name}-{scheme}.png", full_page=True)
        await context.close()
    phone = await browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = await phone.new_page()
    for name, url in pages.items():
        await _open(page, url)
        width = await page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"{name} scrolls sideways on a phone ({width} px)"
        await page.screenshot(path=tmp_path / f"{name}-phone.png", full_page=True)
    await phone.close()
    assert len([n for n in os.listdir(tmp_path) if n.endswith(".png")]) == 15
    kept = os.environ.get("PARLOR_SCREENSHOTS")
    if kept:  # to look at what is drawn
        for name in os.listdir(tmp_path):
            if name.endswith(".png"):
                shutil.copy(tmp_path / name, Path(kept) / name)


async def test_a_replay_steps_with_the_keyboard(
    browser: Browser, site: str, server: Server, tmp_path: Path
) -> None:
    page = await browser.new_page()
    match = server.finished[0]
    assert await _open(page, f"{site}/m/{match}") == []
    heading = page.locator("#step-title")
    assert (await heading.inner_text()).startswith("Start")
    await page.keyboard.press("ArrowRight")
    await page.wait_for_url(re.compile(r"step=1\b"))
    assert (await heading.inner_text()).startswith("Step 1 of")
    await page.keyboard.press("ArrowRight")
    await page.wait_for_url(re.compile(r"step=2\b"))
    await page.keyboard.press("ArrowLeft")
    await page.wait_for_url(re.compile(r"step=1\b"))
    await page.keyboard.press("End")
    await page.wait_for_url(re.compile(r"step=\d+"))
    title = await heading.inner_text()
    last = re.match(r"Step (\d+) of (\d+)", title)
    assert last is not None and last[1] == last[2], title
    assert await page.locator("ul.events li").count() >= 1
    await page.screenshot(path=tmp_path / "replay-end.png", full_page=True)
    await page.keyboard.press("Home")
    await page.wait_for_url(re.compile(r"step=0\b"))
    assert (await heading.inner_text()).startswith("Start")


async def test_a_replay_works_without_javascript(
    browser: Browser, site: str, server: Server
) -> None:
    context = await browser.new_context(java_script_enabled=False)
    page = await context.new_page()
    await _open(page, f"{site}/m/{server.finished[1]}")
    await page.get_by_role("link", name="Next").click()
    await page.wait_for_url(re.compile(r"step=1\b"))
    assert (await page.locator("#step-title").inner_text()).startswith("Step 1 of")
    await page.get_by_role("link", name="Last").click()
    await page.wait_for_url(re.compile(r"step=\d+"))
    assert await page.get_by_role("link", name="Next").count() == 0
    await context.close()
