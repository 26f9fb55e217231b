"""fio's clock, chosen once for every run of a matrix.

fio picks its clock at each start (gettime.c, fio_clock_init): the CPU's
cycle counter (clocksource=cpu) when its calibration succeeds and its
cross-CPU monotonic test passes, else clock_gettime(). On the 2-core dev VM
that test failed in about half the starts, and fio's null engine ran at
9.0M IOPS (cpu) or 5.5M (clock_gettime: about 21 ns a call, several calls
per I/O): the same job, two speeds, picked at random per run. A ratio of
two runs that took different clocks measures fio's clock, not the kernel
path; so flagcheck run passes fio one clocksource for every run.

auto (the default) follows the kernel: when its current clocksource is the
cycle counter (x86 "tsc", arm64 "arch_sys_counter"), the kernel has checked
that counter's rate and its agreement across CPUs, and fio gets
clocksource=cpu; else clock_gettime. "fio" leaves fio its own choice at each
start."""

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
