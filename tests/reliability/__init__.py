"""Reliability and security: faults, load, bad input and attacks against real processes (issue 7)."""
