"""Seasons on Discord: ``/stats season:``, the season settings, and the podium posts."""
