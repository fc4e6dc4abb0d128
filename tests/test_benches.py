"""Every benchmark runs to its end, the way the README runs it, on a small scale.

They print figures and judge nothing here (tests never assert timings): these runs only keep
them working as the code they measure changes. Each runs in a process of its own, as a user
runs it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run_bench(name: str, *args: str, cwd: Path) -> str:
    """``python -m bench.<name> args`` in ``cwd``: its output, once it has ended well."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", f"bench.{name}", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_service_runs_every_path_and_its_baselines(tmp_path: Path) -> None:
    out = run_bench(
        "service",
        *("--matches", "10", "--seconds", "0.3", "--alone", "5"),
        cwd=tmp_path,
    )
    paced = re.search(r"service \(paced at [\d,]+/s, 10 matches\)", out)
    assert paced is not None, out
    paths = (
        "floor (sqlite3, 1 connection)",
        "Core (connection per move)",
        "service (1 match at a time)",
        "service (flat out, 10 matches)",
        paced.group(),
        "naive (session per move)",
    )
    tables = out.split("\n\n")
    assert [line.split(" | ")[0].rstrip() for line in tables[1].splitlines()[2:]] == list(paths)
    ways = [line.split(" | ")[0].rstrip() for line in tables[3].splitlines()[2:]]
    assert ways == [
        "button, board on the response",
        "button, board by the outbox",
        "slash command, board on the response",
        "slash command, board by the outbox",
    ]
    assert "targets (SQLite, 10 matches at once), against Core in this run:" in out
    for target in ("loop CPU per move at most 1.3x", "at least 80% of Core's", "challenges and"):
        assert target in out


def test_queries_times_every_query_on_generated_data(tmp_path: Path) -> None:
    out = run_bench(
        "queries", *("--matches", "2000", "--players", "200", "--calls", "5"), cwd=tmp_path
    )
    for query in ("stats.leaderboard", "stats.member_record", "matches.unfinished_matches"):
        assert query in out
    assert "target: p99 at most 10 ms per query" in out


def test_web_times_every_page_beside_its_baselines(tmp_path: Path) -> None:
    out = run_bench(
        "web",
        *("--matches", "2000", "--players", "200", "--logged", "50", "--calls", "5"),
        cwd=tmp_path,
    )
    for page in ("baseline: static stylesheet", "leaderboard, a random page", "player page"):
        assert page in out
    assert "match page, a random step" in out
    assert "target: p99 at most 50 ms per page" in out


def test_engine_plays_every_game(tmp_path: Path) -> None:
    out = run_bench("engine", "--matches", "3", cwd=tmp_path)
    for game in ("crown", "claim", "crystal", "flag", "safe"):
        assert game in out


def test_review_times_every_game_beside_its_replay(tmp_path: Path) -> None:
    out = run_bench("review", "--matches", "2", cwd=tmp_path)
    for game in ("crown", "claim", "crystal", "flag", "safe"):
        assert game in out
    assert "replay p99 ms" in out and "Target: p99 at most 50 ms per match." in out


def test_puzzle_yield_counts_every_game_beside_its_review(tmp_path: Path) -> None:
    out = run_bench("puzzle_yield", "--matches", "2", "--flag-matches", "1", cwd=tmp_path)
    for game in ("crown", "claim", "crystal", "flag", "safe"):
        assert game in out
    assert "per 1,000 hard" in out and "review p99 ms" in out


def test_review_load_computes_once_beside_the_threads_and_an_idle_loop(tmp_path: Path) -> None:
    out = run_bench(
        "review_load", "--presses", "4", "--rounds", "1", "--workers", "1", cwd=tmp_path
    )
    assert "idle" in out and "threads, each press (before)" in out
    rows = {line.split("|")[0].strip(): line.split("|") for line in out.splitlines() if "|" in line}
    assert rows["threads, each press (before)"][1].strip() == "4"
    assert rows["process pool, once (now)"][1].strip() == "1"
    assert "lag p99 ms" in out and "at most 20 ms" in out


def test_players_pit_the_levels_against_each_other(tmp_path: Path) -> None:
    out = run_bench("players", "--matches", "2", "--flag-matches", "1", cwd=tmp_path)
    assert "against easy" in out and "won %" in out


def test_e2e_plays_through_the_fake_discord(tmp_path: Path) -> None:
    out = run_bench(
        "e2e",
        *("--matches", "3", "--rounds", "2", "--stored", "5", "--rate", "20"),
        *("--paced-matches", "2"),
        *("--kind-matches", "3", "--anywhere-matches", "3"),
        cwd=tmp_path,
    )
    for path in (
        'bare "ok" bot',
        "Parlor, moves by button",
        "Parlor, moves by /crystal take",
    ):
        assert path in out
    assert "Parlor's CPU per interaction at most 5x the bare bot's" in out
    assert "over 2 rounds" in out
    assert "Not in these figures: each bot's first match after start-up" in out
    assert "Paced: interactions start at 20/s in all over 2 matches" in out
    assert "Places: 3 Crystal Capture matches by button" in out
    assert "target: a group DM's CPU per interaction within 10% of a server's" in out
    assert "bot-token calls per move" in out and "5 unfinished matches" in out
    assert "statements/interaction" in out and "commits/interaction" in out
    for kind in ("challenge", "accept", "button move", "slash move", "ending move"):
        assert f"\n{kind} " in out


def test_i18n_renders_in_german_and_english_beside_the_e2e_cpu(tmp_path: Path) -> None:
    out = run_bench("i18n", "--repeat", "2", "--matches", "2", cwd=tmp_path)
    for path in ("board after a move", "refusal", "one _() with a placeholder"):
        assert path in out
    assert "bench.e2e flat out, 2 matches, this run" in out
    assert "loading the German catalogs at start" in out
    assert "target: the catalogs add at most 5% of the CPU per interaction" in out


def test_chart_draws_every_chart_beside_an_empty_figure(tmp_path: Path) -> None:
    out = run_bench("chart", "--repeat", "1", cwd=tmp_path)
    assert "empty figure (baseline)" in out
    assert "Budget: under 300 ms and 150 KB per chart." in out


def test_pairing_times_late_swiss_rounds_beside_the_complete_graph(tmp_path: Path) -> None:
    out = run_bench("pairing", "--quick", cwd=tmp_path)
    assert "16 players" in out and "32 players" in out
    assert "Target: at most 1 s for a late round of 256 players." in out


def test_e2e_scales_out_over_two_processes_on_postgresql(tmp_path: Path) -> None:
    server = os.environ.get("PARLOR_TEST_DATABASE_URL", "")
    if not server.startswith("postgresql"):
        pytest.skip("the scale-out figures need a PostgreSQL server (PARLOR_TEST_DATABASE_URL)")
    out = run_bench("e2e", "--scale-only", "--matches", "4", "--database-url", server, cwd=tmp_path)
    assert "Scale-out on PostgreSQL: 4 Crystal Capture matches" in out
    assert "1 process, both shards" in out and "2 processes, a shard each" in out


def test_queue_counts_a_crowds_waves_and_times_one_wave_beside_sorting(tmp_path: Path) -> None:
    out = run_bench("queue", "--quick", cwd=tmp_path)
    assert "waves until nobody waits" in out and "sorting the ratings (baseline)" in out
    assert "Target: at most 50 ms a wave." in out
    assert "passed_over: who is at the match limit" in out and "claim: the queue's" in out


def test_move_path_names_each_phase_of_one_press(tmp_path: Path) -> None:
    out = run_bench("move_path", cwd=tmp_path)
    assert re.search(r"dispatch to COMMIT: \d+ project functions in \d+ modules", out), out
    assert re.search(r"COMMIT to the board's edit: \d+ project functions in \d+ modules", out), out
    assert re.search(r"hops before the engine's apply: \d+ project frames", out), out
    assert "games.crystal.CrystalGame.apply" in out and "db.matches: load_match" in out


def test_metrics_reads_the_gauges_beside_the_floor(tmp_path: Path) -> None:
    out = run_bench(
        "metrics",
        *("--matches", "200", "--outbox", "10", "--calls", "5", "--observations", "100"),
        cwd=tmp_path,
    )
    assert "SELECT 1 (floor), ms" in out and "gauges' counts, ms" in out
    assert "Metrics.transaction" in out and "empty method call (floor)" in out


def test_puzzle_press_times_an_answer_beside_a_move(tmp_path: Path) -> None:
    out = run_bench("puzzle_press", "--matches", "2", "--puzzles", "4", cwd=tmp_path)
    assert re.search(r"Crystal Capture move \(baseline\) \| 12 \|", out), out
    assert re.search(r"puzzle answer\s+\|  4 \|", out), out
