"""Parlor the application: the match service and its Discord adapter."""
