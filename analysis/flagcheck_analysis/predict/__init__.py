"""flagcheck predict: a model=pattern job file on N simulated CPUs of a
machine profile (machines/machine.py), through flagcheck-sim (sim/), with a
band and a demand check (docs/predict.md). Below report/, above guard/
(fio reads the job file: guard/fiojob.py)."""
