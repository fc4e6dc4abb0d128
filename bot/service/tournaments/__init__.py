"""Tournaments over the match service's matches (docs/tournaments.md).

``pairing`` and ``knockout`` pair rounds, ``standings`` ranks players and ``rounds`` turns match
ends into results and decides what comes next: pure functions over plain values. ``view`` is a
tournament as the service shows it, and ``service`` (``TournamentService``) runs each use case
as one version-checked transaction.
"""
