"""The statistics over the runs: mean, %stddev, Welch's t-test and the
bootstrap interval, the LKP-style comparison, scaling over numjobs, the
Universal Scalability Law fit, and when a cell is decided."""
