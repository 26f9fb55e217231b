"""Plain stores are line writes too: stores per fio I/O beside RMWs per
I/O in the comparison and per-host tables, and the skipped stores read
apart from the skipped RMWs, from the counters file and from fio's
client text alike."""

from flagcheck_analysis.inputs import clients, fiojson
from flagcheck_analysis.report import fixtable


def _doc(total_ios):
    return {"jobs": [{"jobname": "p", "read": {"iops": 1000.0, "bw": 4000,
                                              "total_ios": total_ios},
                      "write": {"iops": 0, "bw": 0, "total_ios": 0}}]}


def test_stores_per_io_beside_rmw_per_io():
    stats = [{"flagcheck": 2, "ios": 500, "rmw": 0, "stores": 1500,
              "stores_skipped": 0},
             {"flagcheck": 2, "ios": 500, "rmw": 0, "stores": 1500,
              "stores_skipped": 0}]
    m = fiojson.run_metrics(_doc(1000), stats)
    assert (m["rmw_per_io"], m["stores_per_io"]) == (0.0, 3.0)
    keys = [k for k, _ in fiojson.METRICS]
    assert keys.index("stores_per_io") == keys.index("rmw_per_io") + 1
    assert dict(fiojson.METRICS)["stores_per_io"] == "flagcheck.stores_per_io"
    assert "stores_per_io" in fixtable.DEFAULT_METRICS


def test_counters_without_stores_have_no_stores_figure():
    m = fiojson.run_metrics(_doc(1000), [{"flagcheck": 2, "ios": 1000,
                                          "rmw": 2000}])
    assert (m["rmw_per_io"], m["stores_per_io"]) == (2.0, None)


def test_stores_skipped_is_a_counter_the_reader_checks(tmp_path):
    path = tmp_path / "x.flagcheck.jsonl"
    path.write_text('{"flagcheck": 2, "ios": 1, "stores_skipped": -1}\n')
    try:
        fiojson.load_counters(str(path))
    except fiojson.InputError as e:
        assert "stores_skipped is -1" in str(e)
    else:
        raise AssertionError("a negative stores_skipped was read")


def test_client_text_reads_stores_apart():
    text = ("<node1> flagcheck: p (job 1): pattern variant=test_first "
            "mapping=shared: ios=10 checks=10 rmw=0 (0.00/io) rmw_skipped=0 "
            "errors_set=0 errors_reported=0 stores=0 stores_skipped=30; "
            "1:WRITE_ONCE(w,7)*3 rmw=0 skipped=0 stores=0 "
            "stores_skipped=30\n"
            "<node2> flagcheck: p (job 1): pattern variant=always "
            "mapping=shared: ios=10 checks=10 rmw=0 (0.00/io) rmw_skipped=0 "
            "errors_set=0 errors_reported=0\n")
    found = clients.counter_lines(text)
    r, = found["node1"]
    assert (r["rmw_skipped"], r["stores"], r["stores_skipped"]) == (0, 0, 30)
    # a line without the engine's stores counts is no counter line
    assert "node2" not in found
