"""prediction.json, the big-box answer stored in a results directory:
flagcheck predict DIR writes it, flagcheck report reads it and renders it
(docs/predict.md, "In the report"). The fields the report reads are
checked here, so that a damaged or older file is one line, never a
traceback."""

import json
import os

from . import fiojson, safewrite, schema

NAME = "prediction.json"
# the form of the file: a file of another form is refused, named
FORMAT = "flagcheck prediction 1"

_FIGURES = schema.Obj({k: schema.NUM for k in ("iops", "low", "high")},
                      ("iops", "low", "high"))
_POSITIVE_IOPS = schema.Obj({"iops": schema.number(above=0),
                             "low": schema.NUM, "high": schema.NUM},
                            ("iops", "low", "high"))
_LOW_HIGH = schema.Obj({"low": schema.NUM, "high": schema.NUM},
                       ("low", "high"))
PREDICTION = schema.Obj({
    "machine": schema.STR, "placement": schema.Opt(schema.STR),
    "cpus": schema.POSITIVE,
    "rest": schema.Obj({"shown": schema.STR, "ns": schema.NUM},
                       ("shown", "ns")),
    "variants": schema.Obj({"always": _FIGURES, "test_first": _FIGURES},
                           ("always", "test_first")),
    "gain": schema.Obj({"value": schema.NUM, "low": schema.NUM,
                        "high": schema.NUM, "costs_seeds": _LOW_HIGH},
                       ("value", "low", "high", "costs_seeds")),
    "demand": schema.List(schema.Obj({"ratio": schema.NUM}, ("ratio",))),
    "why": schema.STR,
    "band": schema.Obj({"published": schema.Opt(schema.NUM),
                        "where": schema.Opt(schema.STR)})},
    ("machine", "placement", "cpus", "rest", "variants", "gain", "demand",
     "why"))
_SERIES = schema.Obj({k: schema.List(schema.NUM)
                      for k in ("iops", "low", "high")},
                     ("iops", "low", "high"))
CURVE = schema.Obj({
    "cpus": schema.List(schema.POSITIVE),
    "variants": schema.List(schema.STR),
    "always": _SERIES, "test_first": _SERIES,
    "gain": schema.Obj({k: schema.List(schema.NUM)
                        for k in ("value", "low", "high")},
                       ("value", "low", "high")),
    "band": schema.List(schema.List(schema.NUM, 4)),
    "published": schema.Opt(schema.List(schema.NUM, 2))},
    ("cpus", "variants", "always", "test_first", "gain", "band",
     "published"))
SCENARIO = schema.Obj({
    "label": schema.STR, "jobfile": schema.STR,
    "gain_published": schema.Opt(schema.NUM),
    "answer": schema.Leaf('"asked" or "published"',
                          lambda v: v in ("asked", "published")),
    "asked": schema.Opt(PREDICTION), "published": schema.Opt(PREDICTION),
    "fio": schema.Opt(PREDICTION), "curve": schema.Opt(CURVE)},
    ("label", "gain_published", "answer", "asked", "published", "fio",
     "curve"))
BESIDE = schema.Obj({
    "label": schema.STR,
    "rows": schema.List(schema.Obj({
        "numjobs": schema.POSITIVE, "rest": schema.STR,
        "from_runs": schema.BOOL, "line": schema.STR,
        "variants": schema.Map(_POSITIVE_IOPS)},
        ("numjobs", "rest", "from_runs", "line", "variants")))},
    ("label", "rows"))
SCHEMA = schema.Obj({
    "format": schema.STR, "cpus": schema.Opt(schema.POSITIVE),
    "note": schema.Opt(schema.STR), "warnings": schema.List(schema.STR),
    "scenarios": schema.List(SCENARIO), "beside": schema.List(BESIDE)},
    ("format", "cpus", "note", "warnings", "scenarios", "beside"))


def path(directory):
    return os.path.join(directory, NAME)


def write(directory, doc):
    """@doc (format added) as DIR/prediction.json, whole or not at all;
    raises OSError."""
    safewrite.write(path(directory), json.dumps(
        dict(doc, format=FORMAT), indent=1, allow_nan=False) + "\n")


def _answer_given(doc):
    for i, s in enumerate(doc["scenarios"]):
        if s[s["answer"]] is None:
            raise schema.Invalid("scenarios[%d].%s" % (i, s["answer"]),
                                 None, "the answer it names")


def read(directory):
    """The stored prediction of results directory @directory, None where
    it holds none; fiojson.InputError (one line naming the file) where
    it is not one flagcheck predict wrote in this form."""
    p = path(directory)
    if not os.path.lexists(p):
        return None
    again = "flagcheck predict %s writes it again" % directory
    try:
        doc = fiojson.decode(p, fiojson.read_text(p, "prediction"))
    except ValueError as e:
        raise fiojson.InputError(p, "not JSON (%s): %s" % (e, again))
    form = doc.get("format") if isinstance(doc, dict) else None
    if form != FORMAT:
        raise fiojson.InputError(p, "format %s, not %s: %s" % (
            schema.show(form), schema.show(FORMAT), again))
    try:
        schema.check(doc, SCHEMA)
        _answer_given(doc)
    except schema.Invalid as e:
        raise fiojson.InputError(p, "%s: %s" % (e, again))
    return doc
