"""``parlor play`` speaks the languages the bot speaks on Discord, from the same catalogs:
``--language``, else the environment's locale (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``,
``LANG``), else English."""

from __future__ import annotations

import pytest

from bot.i18n import LOCALES, _, speaking
from tests.terminal.piped import parlor
from tests.terminal.pty_play import Script, run_parlor

CROWN = ["3 3", "2 1", "2 2", "column", "1 3", "row", "2 1"]
"""The rule book's example: Player 1 captures the Crown at (2,1)."""
CLAIM = [str(n) for n in range(9, 0, -1)]

ENGLISH_WORDS = ("wins the game", "Player 1", "Player 2", " is Ann;", "built-in player")
"""The terminal's own English, which a game in another language must not show."""


def worded(locale: str, message: str, **params: str) -> str:
    """``message`` as the catalogs word it in ``locale``, a ``seat``'s name translated."""
    with speaking(locale):
        if "seat" in params:
            params["seat"] = _(params["seat"])
        return _(message, **params)


@pytest.mark.parametrize("locale", LOCALES[1:])
def test_a_game_is_worded_in_the_language_asked_for(locale: str) -> None:
    played = parlor("play", "crown", "--names", "Ann", "Bob", "--language", locale, answers=CROWN)

    assert played.status == 0, played.err
    assert played.lines[-1] == worded(
        locale, "{name} ({seat}) wins the game!", name="Ann", seat="Player 1"
    )
    first, second = (worded(locale, seat) for seat in ("Player 1", "Player 2"))
    assert played.lines[1] == worded(
        locale, "{first} is {name}; {second} is {other}.", first=first, name="Ann",
        second=second, other="Bob",
    )  # fmt: skip
    with speaking(locale):
        assert f"--- {_('Capture the Crown')} ---" == played.lines[0]
    for english in ENGLISH_WORDS:
        assert english not in played.out


@pytest.mark.parametrize(
    ("environment", "intro"),
    [
        ({"LANG": "fr_FR.UTF-8"}, "Tu es Joueur 1 ; Parlor, le joueur intégré ("),
        ({"LANG": "de_DE.UTF-8", "LC_MESSAGES": "es_ES.UTF-8"}, "Tú eres Jugador 1; Parlor"),
        ({"LANG": "de_DE.UTF-8", "LC_ALL": "pt_BR.UTF-8"}, "Você é Jogador 1; Parlor"),
        ({"LANG": "fr_FR.UTF-8", "LANGUAGE": "ja:de"}, "Du bist Spieler 1; Parlor"),
        ({"LANG": "ja_JP.UTF-8"}, "You are Player 1; Parlor"),
        ({"LANG": "C.UTF-8"}, "You are Player 1; Parlor"),
    ],
)
def test_without_language_the_environments_locale_is_spoken(
    environment: dict[str, str], intro: str
) -> None:
    played = parlor("play", "claim", "--vs-bot", "--seed", "3", answers=CLAIM, env=environment)

    assert played.status == 0, played.err
    assert played.lines[1].startswith(intro)


def test_language_wins_over_the_environment() -> None:
    played = parlor(
        "play", "claim", "--level", "easy", "--language", "es-ES", "--seed", "3",
        answers=CLAIM, env={"LC_ALL": "de_DE.UTF-8"},
    )  # fmt: skip

    assert (
        played.lines[1] == "Tú eres Jugador 1; Parlor, el jugador integrado (fácil), es Jugador 2."
    )
    assert played.lines[-1] in {
        "¡Tú (Jugador 1) ganas la partida!",
        "¡Parlor (Jugador 2) gana la partida!",
        "Empate.",
    }


def test_a_language_parlor_does_not_speak_is_a_usage_error() -> None:
    played = parlor("play", "crown", "--language", "xx")

    assert played.status == 2
    assert "parlor play: error: --language: Parlor speaks en-US, de, es-ES, fr, pt-BR" in played.err


def test_help_is_asked_for_and_given_in_the_language() -> None:
    played = parlor("play", "crown", "--language", "de", answers=["hilfe", "3 3"])

    assert "Was du eingeben kannst:" in played.lines
    assert "  hilfe oder regeln  dieser Text" in played.out.replace("   ", "  ")
    assert "Die Eingabe endete vor dem Ende des Spiels" in played.err
    assert parlor("rules", "crown", "--language", "es-ES").lines[0] == "Qué escribir:"


def test_screens_and_hand_overs_speak_the_language_at_a_keyboard() -> None:
    script = Script(
        {
            "drücke Enter": [""] * 4,
            "Alice, verstecke": ["3 3"],
            "Bob, verstecke": ["2 1"],
        }
    )

    run = run_parlor(["play", "crown", "--names", "Alice", "Bob"], script, {"LANG": "de_DE"})

    assert run.status == 0, run.output
    assert "Gib an Bob weiter und drücke Enter." in run.output
    assert "Kronenraub, Bildschirm von Alice (Bob, schau weg)" in run.output
    assert run.screens[-1].text == "Abgebrochen: Das Spiel endet unvollendet.\n"
