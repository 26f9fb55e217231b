"""After jobs/run-job's fio: the run's counters (the engine's counters
file) against the job file's expect line: the terms it breaks, each one
line (cli/expected.py prints them; docs/your-patch.md)."""

from ..inputs import expect, fiojson


def failures(job, stats):
    """The lines of the terms of @job's expect line that the records of
    counters file @stats break; [] without a line or a counters file."""
    found = expect.read(job)
    records = fiojson.load_counters(stats) if found else None
    return expect.failures(found, job, records) if records else []
