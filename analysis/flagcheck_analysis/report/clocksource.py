"""The fio clock a matrix recorded (its manifest's conditions
"clocksource" and "clocksource_why", chosen by run/clock.py), described for
the report."""


def describe(conditions):
    """The report header's line for one manifest's conditions (the
    manifest reader holds them to their clock)."""
    cs = conditions["clocksource"]
    why = conditions.get("clocksource_why") or ""
    if not cs:
        return "clock: %s" % (why or "fio's own choice at each start")
    return "clock: fio clocksource=%s for every run (%s)" % (cs, why)
