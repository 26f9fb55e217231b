"""The cache line between a run's jobs, measured right before and right
after the run: flagcheck-calibrate's CAS ping-pong for a tenth of a second
on the run's first two CPUs (job 1's and job 2's), one way, in ns.

Why: on the 2-core dev VM always-dirty S1 at 2 jobs ran either near 9.5M
IOPS (test_first/always x1.1) or near 6.4M (x1.65), run by run, with one
fio clock and nothing else on the machine. The line's transfer between the
two vCPUs was then about 27 ns or about 123 ns, in step with it: where the
host runs the vCPUs (sharing a last-level cache or not) decides how much a
cache line that changes hands costs, which is the very thing the scenario
measures. The probe puts that beside every run of 2 or more pinned jobs,
and the report says when it moved within a cell (inputs/lineprobes.py
reads what it recorded)."""

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
