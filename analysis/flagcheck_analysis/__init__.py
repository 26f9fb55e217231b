"""The analysis behind the flagcheck command, in rooms on five floors,
none importing a room of its floor or above (tests/analysis/test_layers.py):
width.py, inputs/; machines/, stats/, fromdiff/; calibrate/, guard/,
report/; run/, predict/; cli/. What each room holds: docs/analysis.md,
"The modules"."""
