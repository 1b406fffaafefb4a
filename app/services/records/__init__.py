"""Match records: a finished match as one text file, read back and checked by the engine.

``format`` is the pure part (writing, reading and checking a record); ``store`` exports a
finished match and imports a record as a new, unrated match.
"""
