"""The "why" section's figures of one run, from its fio JSON and its
counters (the engine's flagcheck_stats file): fio's IOPS and total_ios,
the RMWs and plain stores per I/O, and the time share of the modelled path
(timeshare.py); and the runs grouped by scenario, numjobs and variant."""

import os
from collections import namedtuple

from ..inputs import fiojson, matrix
from . import timeshare

Run = namedtuple("Run", "iops total_ios rmw_per_io share ns_per_check "
                 "model source stores_per_io")


def run_figures(doc, counters, iops, source=None):
    """Run of one fio run and its counters lines (None: no counters)."""
    ios = fiojson.fio_total_ios(doc)
    rmw_io = share = ns_check = model = stores_io = None
    if counters:
        rmws = [fiojson.number_or_none(r.get("rmw")) for r in counters]
        if ios and None not in rmws:
            rmw_io = sum(rmws) / ios
        stores = [fiojson.number_or_none(r.get("stores")) for r in counters]
        if ios and None not in stores:      # counted by model=pattern
            stores_io = sum(stores) / ios
        share, ns_check = timeshare.time_share(
            counters, timeshare.job_runtime_ms(doc))
        model = counters[0].get("model")
    return Run(iops, ios, rmw_io, share, ns_check, model, source, stores_io)


def _counters_of(record, counters):
    """The run's counters: the ones the report read for it (@counters,
    {fio JSON path: records}: its manifest entry's file), else the file
    beside its fio JSON, never through a link."""
    if counters is not None:
        return counters.get(record.source)
    path = matrix.counters_path_for_json(record.source)
    if os.path.islink(path):
        return None
    try:
        return fiojson.load_counters(path)
    except fiojson.InputError:
        return None                     # the report has named it already


def runs(records, docs, counters=None):
    """{(scenario, numjobs, variant): [Run]}; @counters: see _counters_of()."""
    out = {}
    for rec, doc in zip(records, docs):
        out.setdefault((rec.scenario, rec.numjobs, rec.variant), []).append(
            run_figures(doc, _counters_of(rec, counters),
                        rec.metrics.get("iops"), rec.source))
    return out
