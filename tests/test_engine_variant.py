"""One variant option for every model: variant= with each model's own
choices (always/test_first; set_buffer_uptodate also before; bh_lru on/off),
the only name a model's variant has, and a variant of another model than the
job's model= refused with a line naming variant. The models and their
choices are the engine's own (fio --enghelp)."""
import pytest

from expectations import EXPECT
from fiorun import engine_help, engine_variants

# the per-model names the variant had before it was variant= for all
OLDER_NAMES = ("flag_check", "clear_new", "uptodate", "verified", "bh_lru")


@pytest.fixture(scope="module")
def variants(ctx):
    return engine_variants(ctx.fio, ctx.engine)


def run(ctx, *args):
    return ctx.fio_run(ctx.count_args(size="16m") + list(args))


def test_every_model_has_a_variant(ctx, variants):
    assert "before" in variants["set_buffer_uptodate"][0], variants
    assert variants["bh_lru"] == (["on", "off"], "on"), variants
    names = set(engine_help(ctx.fio, ctx.engine))
    assert "variant" in names, names
    assert names.isdisjoint(OLDER_NAMES), names & set(OLDER_NAMES)


# slow: a run per model and variant
@pytest.mark.slow
def test_every_variant_value_runs_as_variant(ctx, variants):
    for model, (values, _) in variants.items():
        needs = [o for o in EXPECT[model].always
                 if not o.startswith("--variant=")]
        for value in values:
            r = run(ctx, f"--model={model}", f"--variant={value}", *needs)
            what = f"--model={model} --variant={value}"
            assert r.rc == 0, f"{what}: {r.err}"
            assert len(r.stats) == 1, what
            s = r.stats[0]
            assert s["variant"] == s["options"]["variant"] == value, \
                (what, s)


def test_default_is_the_models_own(ctx, variants):
    for model, (_, default) in variants.items():
        # what else the model needs (model=pattern its pattern)
        needs = [o for o in EXPECT[model].always
                 if not o.startswith("--variant=")]
        r = run(ctx, f"--model={model}", *needs)
        assert r.rc == 0, r.err
        assert r.stats[0]["variant"] == default, (model, r.stats[0])


@pytest.mark.parametrize("order", ("model first", "variant first"))
def test_another_models_variant_is_refused(ctx, order):
    args = ["--model=block_commit_write", "--variant=before"]
    if order == "variant first":
        args.reverse()
    r = run(ctx, *args)
    assert r.rc != 0, f"{args}: fio exited 0"
    assert ("variant=before is not valid for model=block_commit_write: "
            "allowed values are always, test_first") in r.err, r.err
    assert r.stats == [], "the refused job ran"
    if '"jobs"' in r.out:
        assert sum(j["read"]["total_ios"] for j in r.json()["jobs"]) == 0


def variant_in_global_job(ctx, section, model):
    """A job file with variant=before in [global], model= in its job."""
    return ctx.jobfile(f"""
[global]
ioengine=external:{ctx.engine}
filename=flagcheck-shared
size=16m
time_based=1
runtime=100ms
variant=before
flagcheck_stats=${{FLAGCHECK_STATS}}
[{section}]
model={model}
""")


def test_variant_in_global_model_in_the_job(ctx):
    """[global] variant=before, the job's model= later: checked once both
    are known, not against the model of the moment."""
    job = variant_in_global_job(ctx, "uptodate", "set_buffer_uptodate")
    r = ctx.fio_run([job])
    assert r.rc == 0, r.err
    assert [s["variant"] for s in r.stats] == ["before"], r.stats


def test_variant_another_model_lacks_is_refused_at_setup(ctx):
    job = variant_in_global_job(ctx, "filemap", "filemap_check_errors")
    r = ctx.fio_run([job])
    assert r.rc != 0
    assert ("variant=before is not valid for model=filemap_check_errors: "
            "allowed values are always, test_first") in r.err, r.err
    assert r.stats == [], "the refused job ran"
