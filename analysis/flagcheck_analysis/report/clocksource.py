"""The fio clock a matrix recorded (its manifest's conditions
"clocksource" and "clocksource_why", chosen by run/clock.py), described for
the report."""


def describe(conditions):
    """The report header's line for one manifest's conditions, or None
    where it recorded no clock (older manifests, runs on fio servers)."""
    if "clocksource" not in conditions:
        return None
    cs = conditions.get("clocksource")
    why = conditions.get("clocksource_why") or ""
    if not cs:
        return "clock: %s" % (why or "fio's own choice at each start")
    return "clock: fio clocksource=%s for every run (%s)" % (cs, why)
