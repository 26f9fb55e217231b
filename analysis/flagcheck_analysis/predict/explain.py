"""What limits a fix's gain, in one sentence, read off a prediction's own
figures (the busiest written line of the always form and the same line
in the fixed form), never a rule of thumb; flagcheck predict, its --json
("why") and the report print the same sentence. The rules:
docs/predict.md, "What limits the gain"."""


# the fix keeps the line's traffic when its transfers per I/O stay this
# share of the always form's or more
KEEPS = 0.9
# a line busy this fraction of the time or more limits its form
BUSY = 0.8
# transfers per I/O below this: the line does not move
STILL = 0.005
# lines named one by one in the layout clause; more are counted
NAMED = 3


def _key(u):
    return (u["line"], u["lines"], u["node"])


def _lines(u):
    return "%d-%d" % (u["line"], u["line"] + 1) if u["lines"] == 2 \
        else "%d" % u["line"]


def _name(u):
    """"the usage, watermark line" (its words) or "line 3" with none;
    a line of one NUMA node (a per-node copy: the same words on every
    node) adds its node, so two copies never read as one line named
    twice."""
    words = ", ".join(u.get("words") or ())
    name = "the %s line" % words if words else "line %s" % _lines(u)
    node = u.get("node", -1)
    return name + (" of node %d" % node if node is not None and node >= 0
                   else "")


def _pct(x):
    return "%.0f%%" % (100.0 * x)


def _held(u):
    """The clause on a line's accesses that find it already held, or ""."""
    extra = u["accesses_per_io"] - u["transfers_per_io"]
    if len(u.get("words") or ()) < 2 or extra < 0.5:
        return ""
    return "; %.2f of its %.2f accesses per I/O find it already held" % (
        extra, u["accesses_per_io"])


def _fixed_limit(tf, unit):
    """What limits the fixed form once @unit's transfers are gone."""
    busiest = max(tf, key=lambda u: u["busy"], default=None)
    if busiest is not None and busiest["busy"] >= BUSY:
        return "; the fixed form is then held by %s (busy %s)" % (
            _name(busiest), _pct(busiest["busy"]))
    return "; the fixed form is then held by the rest of the path"


def _limit(pred):
    dem = max(pred["demand"], key=lambda d: d["ratio"], default=None)
    if dem is None:
        return "no shared line is written in the always form (D/C 0): " \
            "the gain is the fix's own local cost or saving"
    al = {_key(u): u for u in pred["lines"]["always"]}
    tf = pred["lines"]["test_first"]
    a = al.get(_key(dem), dict(dem, transfers_per_io=0.0, busy=0.0,
                               accesses_per_io=0.0))
    t = {_key(u): u for u in tf}.get(_key(dem))
    t_x = t["transfers_per_io"] if t else 0.0
    moves = "%.2f and %.2f transfers per I/O" % (a["transfers_per_io"], t_x)
    if dem["ratio"] < 1:
        return ("no shared line is the always form's bottleneck (busiest "
                "written: %s, busy %s, D/C %.3g): the gain is the transfer "
                "time the fix saves on each I/O (%s), not a queue on a "
                "line%s"
                % (_name(dem), _pct(a["busy"]), dem["ratio"], moves,
                   _held(a)))
    if t is not None and t_x >= KEEPS * a["transfers_per_io"]:
        return ("%s stays busy in both forms (D/C %.3g; busy %s and %s, %s):"
                " the fix leaves the accesses that move it%s"
                % (_name(dem), dem["ratio"], _pct(a["busy"]),
                   _pct(t["busy"]), moves, _held(a)))
    if t is not None and t["busy"] >= BUSY:
        return ("%s stays busy in both forms (D/C %.3g; busy %s and %s): "
                "the gain is the share of its transfers the fix saves (%s)%s"
                % (_name(dem), dem["ratio"], _pct(a["busy"]),
                   _pct(t["busy"]), moves, _held(a)))
    return ("the fix takes %s off the path (%s, busy %s and %s): the "
            "gain is at most about D/C %.3g%s"
            % (_name(dem), moves, _pct(a["busy"]),
               _pct(t["busy"] if t else 0.0), dem["ratio"],
               _fixed_limit(tf, dem)))


def _names(units):
    """Up to NAMED lines by name, more as a count with the first two."""
    if len(units) <= NAMED:
        return " and ".join(_name(u) for u in units)
    return "%d lines (%s, ...)" % (len(units), ", ".join(
        _name(u) for u in units[:2]))


def layout(pred):
    """Under a layout fix (module doc) the clause naming which lines of
    the fixed form stopped moving and which still move; "" otherwise."""
    al = {_key(u): tuple(u.get("words") or ()) for u in
          pred["lines"]["always"]}
    tf = pred["lines"]["test_first"]
    if {_key(u): tuple(u.get("words") or ()) for u in tf} == al:
        return ""
    still = [u for u in tf if u["transfers_per_io"] < STILL]
    moving = [u for u in tf if u["transfers_per_io"] >= STILL]
    out = []
    if still:
        out.append("%s stopped moving" % _names(still))
    if moving:
        out.append("%s still move%s (%s transfers per I/O)" % (
            _names(moving), "" if len(moving) > 1 else "s",
            ", ".join("%.3g" % u["transfers_per_io"] for u in
                      moving[:NAMED]) + (", ..." if len(moving) > NAMED
                                         else "")))
    return "layout: " + ("; ".join(out) or "no line of the fixed form")


def sentence(pred):
    """One sentence: the gain and what limits it (module doc), with the
    layout clause under a layout fix."""
    lay = layout(pred)
    return "x%.2f: %s%s." % (pred["gain"]["value"], _limit(pred),
                             "; " + lay if lay else "")
