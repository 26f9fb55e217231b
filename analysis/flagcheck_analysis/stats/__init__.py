"""The statistics over the runs: mean, %stddev, Welch's t-test and the
bootstrap interval, the LKP-style comparison, scaling over numjobs, the
Universal Scalability Law fit, and when a cell is decided.  (The engine's
flagcheck_stats file is the runs' counters, read in results/; see
docs/analysis.md, "The modules".)"""
