"""flagcheck predict: a model=pattern job file on N simulated CPUs of a
machine profile (machines/machine.py), through flagcheck-sim (sim/), with a
band and a demand check (docs/predict.md). Below report/, above results/
and run/ (it reads job files through inputs/jobfile.py)."""
