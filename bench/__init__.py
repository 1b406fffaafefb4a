"""Benchmarks: ``make bench`` runs ``bench/run.py`` (figures, never asserts about time)."""
