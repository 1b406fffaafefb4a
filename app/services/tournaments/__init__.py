"""Tournaments: pure pairing and standings, the runner that pairs rounds, the use cases."""
