"""Where a run's jobs ran, as its manifest entry's "placement" recorded
it (planned by run/placement.py), described for the report."""


def describe(placement):
    """The CPUs of jobs 1..n for the report: 'CPUs 0,2 (nodes 0,1)'."""
    if not placement:
        return "not recorded"
    if not placement.get("pinned"):
        return "floating over CPUs %s" % placement.get("cpus_allowed", "?")
    jobs = placement.get("jobs", ())
    nodes = placement.get("nodes", ())
    extra = ["node%s %s" % ("s" if len(nodes) != 1 else "",
                            ",".join(map(str, nodes)))]
    if placement.get("smt_siblings"):
        extra.append("%d on SMT siblings" % placement["smt_siblings"])
    if placement.get("oversubscribed"):
        extra.append("more jobs than CPUs")
    return "CPU%s %s (%s)" % ("s" if len(jobs) != 1 else "",
                              ",".join(map(str, jobs)), ", ".join(extra))
