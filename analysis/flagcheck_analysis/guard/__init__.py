"""The guard: what a fio job and its command line would write or run,
read before fio runs them (flagcheck run, run-job, flagcheck predict)."""
