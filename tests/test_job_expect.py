"""Every job file the project ships states its expected counters (its
`; expect:` line, one group for every variant of its model) and gives them
in a real 1-job run of each variant: the file as fio reads it, bounded by
2000 I/Os rather than by time (its time_based dropped, number_ios=2000;
the bounds of the lines hold from 2000 I/Os a job), its counters held to
the line by the one checker every run uses (inputs/expect.py)."""
import glob
import os
import re

import pytest

from fiorun import engine_variants
from jobrun import JOBS, clean_env
from flagcheck_analysis.inputs import expect, jobfile

FILES = sorted(glob.glob(os.path.join(JOBS, "*.fio")) +
               glob.glob(os.path.join(JOBS, "*", "*.fio")))
IDS = [os.path.relpath(f, JOBS) for f in FILES]
IOS = 2000
# the runs' variables; S5's sweep reads 16m (run-job defaults: SIZE=16m)
SIZE = {"bh-lru-lookup.fio": "16m", "s5-bh-lru-lookup.fio": "16m"}
# S5's C model: three of its twenty sections (at, and past, the LRU's 16)
SECTIONS = {"bh-lru-lookup.fio": ("mod3", "mod16", "mod17")}


def model_of(path):
    _, opts = jobfile.read(path, clean_env(FLAGCHECK_ENGINE="e", VARIANT="v"))
    models = {o.value for o in opts if o.key == "model"}
    assert len(models) == 1, (path, models)
    return models.pop()


def test_the_bundle_is_all_here():
    assert len(FILES) == 22, IDS


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_every_job_file_expects_each_variant_of_its_model(ctx, path):
    found = expect.read(path)
    assert found is not None, f"{path}: no expect line"
    choices, _ = engine_variants(ctx.fio, ctx.engine)[model_of(path)]
    assert sorted(found.groups) == sorted(choices), found.groups


def bounded(ctx, path):
    """The job file as fio reads it, in the scratch area, its runs ended
    by IOS I/Os a job, not by time."""
    with open(path) as f:
        text = f.read()
    text = re.sub(r"(?m)^time_based\s*$", "", text)
    text = text.replace("[global]", "[global]\nnumber_ios=%d" % IOS, 1)
    return ctx.jobfile(text)


RUNS = [(f, v) for f in FILES for v in expect.read(f).groups]


@pytest.mark.parametrize("path, variant", RUNS,
                         ids=["%s-%s" % (os.path.relpath(f, JOBS), v)
                              for f, v in RUNS])
def test_one_job_gives_the_expected_counters(ctx, path, variant):
    name = os.path.basename(path)
    env = clean_env(VARIANT=variant, NUMJOBS=1, RUNTIME=10,
                    SIZE=SIZE.get(name, "1g"), FILENAME="flagcheck-null-target",
                    BACKEND="null", CREAT_DIR="")
    r = ctx.fio_run([bounded(ctx, path)] +
                    ["--section=%s" % s for s in SECTIONS.get(name, ())],
                    env=env)
    assert r.rc == 0, r.err
    sections = len(SECTIONS.get(name, ())) or 1
    assert [s["ios"] for s in r.stats] == [IOS] * sections, r.stats
    assert expect.failures(expect.read(path), path, r.stats) == []
