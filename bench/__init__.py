"""Benchmarks: each module runs with ``python -m bench.<name>`` and prints its figures."""
