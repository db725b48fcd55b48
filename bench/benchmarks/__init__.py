"""Benchmarks that write their figures under ``results/`` (run them as ``python -m bench.benchmarks.NAME``)."""
