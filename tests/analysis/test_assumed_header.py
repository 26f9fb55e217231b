"""The header's assumed-input lines and published-stddev: read, and refused
with one line naming file:line where a value is out of range."""

import pytest

from flagcheck_analysis.inputs import jobheader


def _job(tmp_path, *lines):
    p = tmp_path / "j.fio"
    p.write_text("".join("; %s\n" % x for x in lines) + "[global]\n")
    return str(p)


def test_every_name_read_with_its_words(tmp_path):
    path = _job(tmp_path,
                'assumed: cpus=16 (8..32): "4-socket box", "two nodes"',
                'assumed: calls=1 (0.5..2): "one check an I/O"',
                'assumed: placement=spread (compact..spread): "spread"',
                'assumed: rest=1000 (250..4000): "about 1 us"',
                'assumed: writers=all (1..all): "f()"',
                'assumed: period=100 (10..1000): "time_after(jiffies, next)"')
    got = jobheader.assumed(path)
    assert sorted(got) == ["calls", "cpus", "period", "placement", "rest",
                           "writers"]
    c = got["cpus"]
    assert (c.point, c.low, c.high) == (16, 8, 32)
    assert c.words == ("4-socket box", "two nodes")
    assert c.where == path + ":1"
    assert (got["calls"].low, got["calls"].high) == (0.5, 2.0)
    assert got["placement"].point == "spread"
    assert (got["rest"].low, got["rest"].high) == (250.0, 4000.0)
    w = got["writers"]
    assert (w.point, w.low, w.high) == ("all", 1, "all")
    t = got["period"]
    assert (t.point, t.low, t.high) == (100, 10, 1000)
    assert t.words == ("time_after(jiffies, next)",)


@pytest.mark.parametrize("value,ends", [
    ('writers=4 (2..8): "x"', (4, 2, 8)),
    ('writers=4 (2..all): "x"', (4, 2, "all")),    # all: above every count
    ('writers=all (all..all): "x"', ("all", "all", "all")),
    ('period=1000000 (100000..10000000): "x"', (1000000, 100000, 10000000)),
])
def test_writers_and_period_ranges(tmp_path, value, ends):
    a = jobheader.assumed(_job(tmp_path, "assumed: " + value))
    (got,) = a.values()
    assert (got.point, got.low, got.high) == ends

def test_none_without_lines(tmp_path):
    path = _job(tmp_path, "published-machine: x 4")
    assert jobheader.assumed(path) == {}
    assert jobheader.published_stddev(path) is None


@pytest.mark.parametrize("value", [
    'cpus=16 (17..32): "x"',            # the point below the range
    'cpus=16 (8..32)',                  # no source's words
    'cpus=16.5 (8..32): "x"',           # not a whole number
    'calls=0 (0..2): "x"',              # below 0.001
    'rest=5 (1..2e10): "x"',            # above 1e9
    'placement=spread (spread..compact): "x"',
    'placement=wide (compact..spread): "x"',
    'threads=4 (2..8): "x"',            # not a name the band knows
    'writers=all (1..8): "x"',          # every job above a count of 8
    'writers=4 (all..8): "x"',
    'writers=0 (0..all): "x"',          # every job is written all
    'writers=2.5 (1..all): "x"',        # not a whole number
    'writers=4 (2..200000): "x"',       # above 100000
    'writers=every (1..all): "x"',
    'period=0 (0..10): "x"',            # a suffix of 1 or more
    'period=10.5 (1..100): "x"',        # a suffix is a whole number
    'period=100 (10..2000000000): "x"',  # above 1e9
    'period=100 (200..1000): "x"',      # the point below the range
    'cpus=16 (8..32): x',               # words not quoted
])
def test_bad_line_refused_naming_it(tmp_path, value):
    path = _job(tmp_path, "assumed: " + value)
    with pytest.raises(jobheader.FigureError) as e:
        jobheader.assumed(path)
    msg = str(e.value)
    assert msg.startswith(path + ":1: assumed ")
    assert repr(value) in msg
    assert "\n" not in msg
    assert "writers (1..100000 or all: every job)" in msg
    assert "period (1..1e9: the N of /every=N or the T of /every_ns=T)" in msg


def test_second_line_of_one_name_refused(tmp_path):
    path = _job(tmp_path, 'assumed: cpus=16 (8..32): "a"',
                'assumed: cpus=8 (4..16): "b"')
    with pytest.raises(jobheader.FigureError, match=":2: a second assumed "
                       "cpus line"):
        jobheader.assumed(path)


def test_stddev_read_and_refused(tmp_path):
    assert jobheader.published_stddev(
        _job(tmp_path, "published-stddev: 1.5%")) == 0.015
    with pytest.raises(jobheader.FigureError, match="published-stddev '0%'"):
        jobheader.published_stddev(_job(tmp_path, "published-stddev: 0%"))
