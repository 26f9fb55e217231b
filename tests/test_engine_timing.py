"""The timed model calls under a CPU hog: a busy loop on the job's own CPU
preempts some timed calls between their two clock reads. The counters line
keeps the timed calls by log2 of their ns (timed_log2, timed_log2_ns),
adding up exactly to timed_calls and timed_ns, and the report's time share,
trimmed of the preempted calls, stays within fio's job_runtime: no "are
wrong" warning for a genuine run."""
import os

import pytest

from tests.analysis.helpers import cpu_hog
from flagcheck_analysis.inputs import counters
from flagcheck_analysis.report import runfigures, timeshare

# serial: a busy loop pinned to a CPU, and the time share measured beside it
pytestmark = pytest.mark.serial


@pytest.fixture
def hog():
    """A busy loop on one CPU this test may use: that CPU."""
    cpu = min(os.sched_getaffinity(0))
    with cpu_hog(cpu):
        yield cpu


# S1's short calls, and S5's long ones (100 lookups per call, a few us):
# there a preempted timed call is likely, and the plain mean of the timed
# calls puts the share beyond 100% in some runs beside the hog
MODELS = {"filemap_check_errors": {"variant": "always"},
          "bh_lru": {"variant": "off", "lookups_per_io": 100}}


@pytest.mark.parametrize("model", MODELS)
def test_time_share_under_a_cpu_hog(ctx, hog, model):
    r = ctx.fio_run(ctx.base_args(model=model, cpus_allowed=hog, numjobs=2,
                                  runtime=1, **MODELS[model]))
    assert r.rc == 0, r.err
    doc = r.json()
    assert sum(s["ios"] for s in r.stats) == sum(
        j["read"]["total_ios"] for j in doc["jobs"])
    for s in r.stats:
        assert len(s["timed_log2"]) == len(s["timed_log2_ns"]) == 32, s
        assert sum(s["timed_log2"]) == s["timed_calls"] > 0, s
        assert sum(s["timed_log2_ns"]) == s["timed_ns"], s
    for s in r.stats:
        counters.check(s)           # the report's reader takes its buckets
    run = runfigures.run_figures(doc, r.stats, None, "hog")
    assert 0 < run.share <= 100, run
    assert timeshare.share_warning(run) is None
