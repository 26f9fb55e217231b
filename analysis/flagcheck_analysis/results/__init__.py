"""What the runs left behind, read and checked: fio's JSON, the engine's
counters, the run matrix and its file names, manifest.json, and the whole-or-
nothing file write."""
