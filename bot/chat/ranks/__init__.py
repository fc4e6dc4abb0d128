"""Rank roles on Discord: ``/ranks`` and the keeper that gives and takes the roles."""
