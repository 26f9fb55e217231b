"""The cache line between a run's jobs, measured right before and after the
run: flagcheck-calibrate's CAS ping-pong for a tenth of a second between
job 1's and job 2's CPUs, one way, in ns (inputs/lineprobes.py reads it
back). Why a VM needs it: docs/analysis.md, "On a busy machine"."""

from ..calibrate import calibration

SECONDS = 0.1
# a probe that does not end is stopped after 20 times its length, 2 s at
# least (the program starts, pins itself and measures in that time)
TIMEOUT_MIN = 2.0


def cpus_of(place):
    """The two CPUs to probe for a run's placement (job 1's and job 2's),
    or None: fewer than two jobs or CPUs, or jobs not pinned."""
    if not place or not place.get("pinned"):
        return None
    jobs = place.get("jobs") or []
    if len(jobs) < 2 or jobs[0] == jobs[1]:
        return None
    return [jobs[0], jobs[1]]


def probe(cpus, program=None, seconds=SECONDS):
    """One-way transfer ns between the two @cpus; raises
    calibration.CalibrationError."""
    doc = calibration.run_program(program or calibration.default_program(),
                                seconds=seconds, max_threads=1, cpus=cpus,
                                timeout=max(TIMEOUT_MIN, 20 * seconds))
    index = {c: i for i, c in enumerate(doc["cpus"])}
    if not all(c in index for c in cpus):
        raise calibration.CalibrationError(
            "flagcheck-calibrate measured CPUs %s, not %s"
            % (doc["cpus"], cpus))
    ns = doc["transfer_ns"][index[cpus[0]]][index[cpus[1]]]
    if not isinstance(ns, (int, float)) or ns <= 0:
        raise calibration.CalibrationError(
            "flagcheck-calibrate gave no transfer time for CPUs %s" % cpus)
    return float(ns)
