"""Benchmarks: the match service under load, and the stats queries on a large server."""
