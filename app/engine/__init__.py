"""The game-agnostic core: pure Python, no I/O, no web or database imports."""
