"""The job file's `; expect:` line (inputs/expect.py): read, refused with one
line naming file:line and the part that is wrong, and a run's counters held
against it exactly: a failure names the file, the variant, the term, the
count and the operations behind it."""

from fractions import Fraction

import pytest

from flagcheck_analysis.inputs import expect, jobheader


def _job(tmp_path, *lines, body=""):
    p = tmp_path / "j.fio"
    p.write_text("".join("; %s\n" % x for x in lines) + "[global]\n" + body)
    return str(p)


def test_groups_and_terms_read(tmp_path):
    path = _job(tmp_path, "expect: always rmw/io=2 stores/io=0; "
                "test_first rmw/io<0.001 stores/io <= 1/4000 checks/io>=1")
    e = expect.read(path)
    assert e.where == path + ":1"
    assert list(e.groups) == ["always", "test_first"]
    assert [(t.counter, t.op, t.value) for t in e.groups["always"]] == \
        [("rmw", "=", 2), ("stores", "=", 0)]
    tf = e.groups["test_first"]
    assert [(t.counter, t.op) for t in tf] == \
        [("rmw", "<"), ("stores", "<="), ("checks", ">=")]
    assert tf[0].value == Fraction(1, 1000)     # exact, not 0.001 as a float
    assert tf[1].value == Fraction(1, 4000)
    assert tf[1].text == "stores/io<=1/4000"


def test_none_without_a_line(tmp_path):
    assert expect.read(_job(tmp_path, "published-figure: none")) is None


@pytest.mark.parametrize("value, part", [
    ("always", "'always' has no term"),
    ("always rmw/io=2;", "'' (an empty group)"),
    ("; always rmw/io=2", "'' (an empty group)"),
    ("al*ways rmw/io=2", "'al*ways' is not a variant's name"),
    ("always rmw=2", "'rmw=2' is not valid"),
    ("always rmw/io==2", "'rmw/io==2' is not valid"),
    ("always rmw/io=x", "'rmw/io=x' is not valid"),
    ("always rmw/io=-1", "'rmw/io=-1' is not valid"),
    ("always rmw/io=1/0", "'rmw/io=1/0' is not valid"),
    ("always rmw/io=1e3", "'rmw/io=1e3' is not valid"),
    ("always rmw/io=1000000001", "'rmw/io=1000000001' is not valid"),
    ("always rmw/io=2 junk", "'junk' is not valid"),
    ("always RMW/io=2", "'RMW/io=2' is not valid"),
])
def test_bad_line_refused_naming_the_part(tmp_path, value, part):
    path = _job(tmp_path, "expect: " + value)
    with pytest.raises(jobheader.FigureError) as e:
        expect.read(path)
    msg = str(e.value)
    assert msg.startswith("%s:1: expect %r: %s: allowed " % (
        path, value, part)), msg
    assert "\n" not in msg


def test_a_variant_twice_refused(tmp_path):
    path = _job(tmp_path, "expect: always rmw/io=2; always stores/io=0")
    with pytest.raises(jobheader.FigureError, match="variant always twice"):
        expect.read(path)


def test_a_second_line_refused(tmp_path):
    path = _job(tmp_path, "expect: always rmw/io=2", "expect: always rmw/io=1")
    with pytest.raises(jobheader.FigureError,
                       match=r":2: a second expect line"):
        expect.read(path)


def test_a_line_below_the_header_refused(tmp_path):
    path = _job(tmp_path, "published-figure: none",
                body="; expect: always rmw/io=2\n")
    with pytest.raises(jobheader.FigureError,
                       match=r":3: an expect line below \[global\]"):
        expect.read(path)


def test_variants_held_to_the_models(tmp_path):
    e = expect.read(_job(tmp_path, "expect: on checks/io=1000; off rmw/io=0"))
    expect.check_variants(e, ("on", "off"), "bh_lru")
    with pytest.raises(jobheader.FigureError) as err:
        expect.check_variants(e, ("always", "test_first"), "pattern")
    assert str(err.value) == (
        "%s:1: expect names variant on: model=pattern has always, "
        "test_first" % e.where.rsplit(":", 1)[0])


def _rec(variant, ios, **counts):
    paths = counts.pop("paths", {})
    stats = counts.pop("model_stats", {})
    return dict(variant=variant, ios=ios, paths=paths, model_stats=stats,
                **counts)


E = expect.parse("always rmw/io=2 stores/io=0; test_first rmw/io<0.001 "
                 "retries/io=0", "s1.fio:7")


def test_exact_counts_pass_summed_over_jobs():
    recs = [_rec("always", 600, rmw=1200, stores=0),
            _rec("always", 400, rmw=800, stores=0),
            _rec("test_first", 5000, rmw=4, stores=0,
                 model_stats={"retries": 0})]
    assert expect.failures(E, "s1.fio", recs) == []


def test_equal_is_exact_in_whole_numbers():
    # 1999 of 1000 I/Os is 1.999 per I/O, not 2: no rounding
    recs = [_rec("always", 1000, rmw=1999, stores=0)]
    assert expect.failures(E, "s1.fio", recs) == [
        "s1.fio: expect always: rmw/io=2 failed: counted 1.999/io (1999 rmw "
        "in 1000 I/Os); from no operation"]


def test_a_failure_names_the_operations():
    paths = {"1:test_and_set_bit(running,0)/every=4000": {"rmw": 1},
             "2:atomic_set(running,0)/if_test=0": {"stores": 30328}}
    recs = [_rec("always", 30328, rmw=1, stores=30328, paths=paths)]
    assert expect.failures(E, "trap.fio", recs)[1] == (
        "trap.fio: expect always: stores/io=0 failed: counted 1/io (30328 "
        "stores in 30328 I/Os); from 2:atomic_set(running,0)/if_test=0 "
        "30328 (1/io)")


def test_a_bound_is_strict_where_it_says_so():
    e = expect.parse("test_first rmw/io<1/1000", "x:1")
    assert expect.failures(e, "x", [_rec("test_first", 1000, rmw=1)]) != []
    assert expect.failures(e, "x", [_rec("test_first", 1001, rmw=1)]) == []


def test_a_counter_the_records_lack_is_named():
    recs = [_rec("test_first", 10, rmw=0)]      # no model_stats retries
    got = expect.failures(E, "x", recs)
    assert got == ["x: expect test_first: retries/io=0: the counters have "
                   "no retries (they have checks, rmw, rmw_skipped, stores, "
                   "errors_set, errors_reported, stores_skipped and "
                   "model_stats none)"]


def test_a_variant_without_a_group_is_not_checked():
    assert expect.failures(E, "x", [_rec("before", 10, rmw=99)]) == []
