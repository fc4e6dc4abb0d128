"""Puzzles on Discord: ``/puzzle``, its answers, and the daily puzzle post."""
