"""fio's clock, chosen once for every run of a matrix: fio otherwise picks
its clock at each start, and two runs on different clocks measure fio's
clock, not the kernel path. auto follows the kernel's clocksource.
docs/analysis.md, "On a busy machine" (one clock)."""

from ..inputs import textfile

CHOICES = ("auto", "cpu", "clock_gettime", "gettimeofday", "fio")
SYSFS = "/sys/devices/system/clocksource/clocksource0/current_clocksource"
CYCLE_COUNTERS = ("tsc", "arch_sys_counter")


def kernel_clocksource(path=SYSFS):
    """The kernel's current clocksource ("tsc", "kvm-clock", ...), or None
    where it cannot be read."""
    return (textfile.read_system(path) or "").strip() or None


def choose(requested, kernel=None):
    """(fio's clocksource or None for fio's own choice, why): the one clock
    of every run for `requested` (one of CHOICES) on a machine whose kernel
    clocksource is `kernel`."""
    if requested == "fio":
        return None, "fio's own choice at each start (--clocksource fio)"
    if requested != "auto":
        return requested, "--clocksource %s" % requested
    if kernel in CYCLE_COUNTERS:
        return "cpu", ("the kernel's clocksource is %s: the cycle counter, "
                       "checked by the kernel" % kernel)
    return "clock_gettime", ("the kernel's clocksource is %s, not a cycle "
                             "counter" % (kernel or "unknown"))


def fio_args(clocksource):
    """fio's command-line option for the chosen clock ([] for fio's own)."""
    return ["--clocksource=%s" % clocksource] if clocksource else []


def default_for_here():
    """What auto picks on this machine (for --help)."""
    return choose("auto", kernel_clocksource())[0]
