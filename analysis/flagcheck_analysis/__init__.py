"""The analysis behind the flagcheck command, in rooms on five floors,
none importing a room of its floor or above (tests/analysis/test_layers.py):
width.py, inputs/; machines/, stats/, guard/; calibrate/, predict/,
report/; run/; cli/. What each room holds: docs/analysis.md, "The
modules"."""
