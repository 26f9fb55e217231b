"""The analysis behind the flagcheck command, in layers, bottom to top; no
module imports one of a layer above its own (tests/analysis/test_layers.py):
  width.py    the 120 columns every line printed keeps to
  inputs/     the files read: fio JSON, counters, job files, manifests,
              calibration.json, published figures; their ranges
  machines/   machine profiles, their physics, this host's CPUs
  stats/      mean, %stddev, Welch, bootstrap; the comparison, scaling,
              the scaling law, when a cell is decided
  calibrate/  this machine's cache-line costs (calibration.json)
  run/        running fio over the matrix: runner, placement, clock,
              interference, line probe, the job guard, client/server
  predict/    a job file on a simulated machine: band, fio's cost
  report/     the report's sections, text/Markdown/CSV, plots
  cli/        the flagcheck command: argv, each subcommand's main"""
