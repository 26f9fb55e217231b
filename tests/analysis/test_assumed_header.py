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
                'assumed: rest=1000 (250..4000): "about 1 us"')
    got = jobheader.assumed(path)
    assert sorted(got) == ["calls", "cpus", "placement", "rest"]
    c = got["cpus"]
    assert (c.point, c.low, c.high) == (16, 8, 32)
    assert c.words == ("4-socket box", "two nodes")
    assert c.where == path + ":1"
    assert (got["calls"].low, got["calls"].high) == (0.5, 2.0)
    assert got["placement"].point == "spread"
    assert (got["rest"].low, got["rest"].high) == (250.0, 4000.0)


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
    'cpus=16 (8..32): x',               # words not quoted
])
def test_bad_line_refused_naming_it(tmp_path, value):
    path = _job(tmp_path, "assumed: " + value)
    with pytest.raises(jobheader.FigureError) as e:
        jobheader.assumed(path)
    msg = str(e.value)
    assert msg.startswith(path + ":1: assumed ")
    assert repr(value) in msg


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
