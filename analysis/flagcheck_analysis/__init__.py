"""Runner and report for flagcheck: fio runs over a mode x numjobs matrix, then
LKP-style comparison, scaling tables and plots.  Needs numpy and scipy;
matplotlib is imported lazily by report/plot.py.

In layers: results/ and stats/ import no other, run/ never reaches report/
(tests/analysis/test_layers.py checks both):
  results/    what the runs left: fio JSON, the engine's counters, the
              matrix's file names, manifest.json
  stats/      mean, %stddev, Welch, bootstrap; the comparison, scaling, the
              scaling law, when a cell is decided
  calibrate/  this machine's cache-line costs (calibration.json)
  run/        flagcheck run: config, runner, placement, clock, interference,
              line probe, job file checks, fio client/server hosts
  report/     flagcheck report: its sections, text/Markdown/CSV, plots"""
