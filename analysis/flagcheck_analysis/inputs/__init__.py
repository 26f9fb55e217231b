"""The files flagcheck reads, each read and checked by one module: fio's
JSON, the engine's counters, job files and their header lines, the
manifest and run records, calibration.json, the published figures; the
ranges of every file a user can edit (schema.py), the one bounded text
reader (textfile.py) and the one whole-or-nothing writer (safewrite.py)."""
