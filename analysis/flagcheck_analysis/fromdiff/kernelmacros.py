"""The kernel's generated helpers and the names around the grammar's rows,
declared once, each with the kernel file and version it is read from;
kernelnames.py generates every helper from it (docs/your-patch.md, "The
table").  A template's {0}, {1} are the call's arguments, {bit}, {name}
a macro's parameters; a word's template names the memory it touches."""

import functools
from collections import namedtuple

# a macro generating one function per use: its parameters, the functions
# (name template, the grammar row, '?' first where it tests first), the
# row's arguments as templates, the kernel's uses and the source
Macro = namedtuple("Macro", "name params generates args uses source")
# one step of a helper: the row ('?' first: its test-first form), its
# arguments, who shares its word ('job': each CPU its own) and a guard
Step = namedtuple("Step", "op args sharing guard")

BUFFER_HEAD = "include/linux/buffer_head.h, Linux 4.15 to 6.x"
PAGE_FLAGS = "include/linux/page-flags.h, Linux 3.x (2014, before 4.5)"

# enum bh_state_bits (include/linux/buffer_head.h, Linux 5.11 to 6.x: no
# BH_Uptodate_Lock) in order: BH_Uptodate = 0, BH_Dirty = 1, ...
BH_BITS = ("Uptodate Dirty Lock Req Mapped New Async_Read Async_Write Delay "
           "Boundary Write_EIO Unwritten Quiet Meta Prio Defer_Completion")
# enum pageflags (PAGE_FLAGS, with CONFIG_PAGEFLAGS_EXTENDED and MMU)
PG_BITS = ("locked error referenced uptodate dirty lru active slab "
           "owner_priv_1 arch_1 reserved private private_2 writeback head "
           "tail swapcache mappedtodisk reclaim swapbacked unevictable "
           "mlocked")
# enum mapping_flags (include/linux/pagemap.h, Linux 3.x to 6.x)
AS_BITS = "EIO ENOSPC"
# include/vdso/time64.h (include/linux/time64.h before 5.1)
TIMES = {"NSEC_PER_USEC": 1000, "NSEC_PER_MSEC": 1000000,
         "NSEC_PER_SEC": 1000000000}

# BUFFER_FNS(bit, name) uses (BUFFER_HEAD; BUFFER_FNS(Uptodate, uptodate)
# until 6.0, then its own functions below)
BH_USES = (("Dirty", "dirty"), ("Lock", "locked"), ("Req", "req"),
           ("Mapped", "mapped"), ("New", "new"),
           ("Async_Read", "async_read"), ("Async_Write", "async_write"),
           ("Delay", "delay"), ("Boundary", "boundary"),
           ("Write_EIO", "write_io_error"), ("Unwritten", "unwritten"),
           ("Meta", "meta"), ("Prio", "prio"),
           ("Defer_Completion", "defer_completion"))
TAS_USES = (("Dirty", "dirty"), ("Req", "req"))

# the page flags' uses (PAGE_FLAGS): uname lname, then the macros
# PAGEFLAG (= TEST SET CLEAR), __PAGEFLAG (= TEST __SET __CLEAR), TESTSC
# (= TESTSET TESTCLEAR) and the single ones
PAGE_USES = """
Locked locked TEST
Error error PAGEFLAG TESTCLEAR
Referenced referenced PAGEFLAG TESTCLEAR __SET
Dirty dirty PAGEFLAG TESTSC __CLEAR
LRU lru PAGEFLAG __CLEAR
Active active PAGEFLAG __CLEAR TESTCLEAR
Slab slab __PAGEFLAG
Reserved reserved PAGEFLAG __CLEAR
SwapBacked swapbacked PAGEFLAG __CLEAR __SET
Private private PAGEFLAG __SET __CLEAR
Private2 private_2 PAGEFLAG TESTSC
Writeback writeback TEST TESTSC
MappedToDisk mappedtodisk PAGEFLAG
Reclaim reclaim PAGEFLAG TESTCLEAR
SwapCache swapcache PAGEFLAG
Unevictable unevictable PAGEFLAG __CLEAR TESTCLEAR
Mlocked mlocked PAGEFLAG __CLEAR TESTSC
Uptodate uptodate CLEAR
"""
_PAGE_PARTS = {"PAGEFLAG": ("TEST", "SET", "CLEAR"),
               "__PAGEFLAG": ("TEST", "__SET", "__CLEAR"),
               "TESTSC": ("TESTSET", "TESTCLEAR")}
_PAGE_FNS = {"TEST": ("Page{uname}", "test_bit"),
             "SET": ("SetPage{uname}", "set_bit"),
             "CLEAR": ("ClearPage{uname}", "clear_bit"),
             "__SET": ("__SetPage{uname}", "__set_bit"),
             "__CLEAR": ("__ClearPage{uname}", "__clear_bit"),
             "TESTSET": ("TestSetPage{uname}", "test_and_set_bit"),
             "TESTCLEAR": ("TestClearPage{uname}", "test_and_clear_bit")}


def _page_macros():
    """One Macro per page-flag macro, its uses read from PAGE_USES."""
    uses = {}
    for line in PAGE_USES.split("\n"):
        if not line.strip():
            continue
        uname, lname, *macros = line.split()
        for m in macros:
            for part in _PAGE_PARTS.get(m, (m,)):
                uses.setdefault(part, []).append((uname, lname))
    return tuple(Macro(part + "PAGEFLAG", ("uname", "lname"),
                       (_PAGE_FNS[part],),
                       {"word": "{0}->flags", "bit": "PG_{lname}"},
                       tuple(u), PAGE_FLAGS)
                 for part, u in sorted(uses.items()))


MACROS = (
    Macro("BUFFER_FNS", ("bit", "name"),
          (("set_buffer_{name}", "?set_bit"),      # 60f91826ca62 (4.15)
           ("clear_buffer_{name}", "clear_bit"),
           ("buffer_{name}", "test_bit")),
          {"word": "{0}->b_state", "bit": "BH_{bit}"}, BH_USES, BUFFER_HEAD),
    Macro("TAS_BUFFER_FNS", ("bit", "name"),
          (("test_set_buffer_{name}", "test_and_set_bit"),
           ("test_clear_buffer_{name}", "test_and_clear_bit")),
          {"word": "{0}->b_state", "bit": "BH_{bit}"}, TAS_USES,
          BUFFER_HEAD),
) + _page_macros()

_BH_UPTODATE = {"word": "{0}->b_state", "bit": "BH_Uptodate"}
_CPUMASK = "include/linux/cpumask.h, Linux 2.6.28 to 6.x"
_PAGE_REF = "include/linux/page_ref.h, Linux 4.6 to 6.x"
_PERCPU = ("lib/percpu_counter.c percpu_counter_add_batch(), Linux 4.13 "
           "to 6.x: the CPU's own count, folded into the shared one under "
           "its lock when it passes the batch (the lock's fast path: one "
           "cmpxchg, the grammar's spin_lock taking no guard)")
_FOLD = (Step("atomic_cmpxchg", {"word": "{0}->lock", "old": "0",
                                 "new": "1"}, None, "every"),
         Step("WRITE_ONCE", {"word": "{0}->count", "value": "{batch}"},
              None, "every"),
         Step("WRITE_ONCE", {"word": "{0}->lock", "value": "0"}, None,
              "every"))

# single kernel functions (not generated by a macro): name -> (steps,
# source); a step's guard "every" is /every={batch}
FUNCTIONS = {
    "set_buffer_uptodate": ((Step("?set_bit", _BH_UPTODATE, None, None),),
                            "include/linux/buffer_head.h, Linux 6.0 to 6.x"
                            " (2f79cdfe58c1: the barrier and set_bit only "
                            "when the bit is clear)"),
    "clear_buffer_uptodate": ((Step("clear_bit", _BH_UPTODATE, None,
                                    None),), BUFFER_HEAD),
    "buffer_uptodate": ((Step("test_bit", _BH_UPTODATE, None, None),),
                        BUFFER_HEAD),
    "PageUptodate": ((Step("test_bit", {"word": "{0}->flags",
                                        "bit": "PG_uptodate"}, None,
                           None),), PAGE_FLAGS),
    "SetPageUptodate": ((Step("set_bit", {"word": "{0}->flags",
                                          "bit": "PG_uptodate"}, None,
                              None),), PAGE_FLAGS),
    "cpumask_set_cpu": ((Step("set_bit", {"word": "{1}", "bit": "{0}"},
                              None, None),), _CPUMASK),
    "cpumask_clear_cpu": ((Step("clear_bit", {"word": "{1}", "bit": "{0}"},
                                None, None),), _CPUMASK),
    "cpumask_test_cpu": ((Step("test_bit", {"word": "{1}", "bit": "{0}"},
                               None, None),), _CPUMASK),
    "cpumask_test_and_set_cpu": ((Step("test_and_set_bit", {
        "word": "{1}", "bit": "{0}"}, None, None),), _CPUMASK),
    "cpumask_test_and_clear_cpu": ((Step("test_and_clear_bit", {
        "word": "{1}", "bit": "{0}"}, None, None),), _CPUMASK),
    "page_ref_inc": ((Step("atomic_inc", {"word": "{0}->_refcount"}, None,
                           None),), _PAGE_REF),
    "page_ref_dec": ((Step("atomic_dec", {"word": "{0}->_refcount"}, None,
                           None),), _PAGE_REF),
    "page_ref_dec_and_test": ((Step("atomic_dec_and_test", {
        "word": "{0}->_refcount"}, None, None),), _PAGE_REF),
    "get_page_unless_zero": ((Step("atomic_add_unless", {
        "word": "{0}->_refcount", "n": "1", "u": "0"}, None, None),),
        _PAGE_REF),
    "percpu_counter_add_batch": ((Step("atomic_add", {
        "word": "{0}->counters", "n": "1"}, "job", None),) + _FOLD, _PERCPU),
    "percpu_counter_add": ((Step("atomic_add", {
        "word": "{0}->counters", "n": "1"}, "job", None),) + _FOLD, _PERCPU),
    "percpu_counter_inc": ((Step("atomic_add", {
        "word": "{0}->counters", "n": "1"}, "job", None),) + _FOLD, _PERCPU),
    "percpu_counter_dec": ((Step("atomic_sub", {
        "word": "{0}->counters", "n": "1"}, "job", None),) + _FOLD, _PERCPU),
    "percpu_counter_read": ((Step("READ_ONCE", {"word": "{0}->count"},
                                  None, None),), _PERCPU),
    "percpu_counter_read_positive": ((Step("READ_ONCE", {
        "word": "{0}->count"}, None, None),), _PERCPU),
}
# the batch of a percpu counter's fold where the call gives none:
# percpu_counter_batch, max(32, 2 x online CPUs) (lib/percpu_counter.c):
# 32 up to 16 CPUs
PERCPU_BATCH = 32

# kernel spellings of a row under another name: name -> (row, {row
# argument: template}, who shares the word)
RENAMES = {
    "cmpxchg": ("atomic_cmpxchg", {"word": "{0}", "old": "{1}",
                                   "new": "{2}"}, None),
    "try_cmpxchg": ("atomic_cmpxchg", {"word": "{0}", "old": "*{1}",
                                       "new": "{2}"}, None),
    "atomic_try_cmpxchg": ("atomic_cmpxchg", {"word": "{0}", "old": "*{1}",
                                              "new": "{2}"}, None),
    "xchg": ("atomic_xchg", {"word": "{0}", "value": "{1}"}, None),
    "smp_store_release": ("WRITE_ONCE", {"word": "{0}", "value": "{1}"},
                          None),
    "smp_load_acquire": ("READ_ONCE", {"word": "{0}"}, None),
    "spin_lock_irqsave": ("spin_lock", {"word": "{0}"}, None),
    "spin_lock_irq": ("spin_lock", {"word": "{0}"}, None),
    "spin_lock_bh": ("spin_lock", {"word": "{0}"}, None),
    "raw_spin_lock": ("spin_lock", {"word": "{0}"}, None),
    "raw_spin_lock_irqsave": ("spin_lock", {"word": "{0}"}, None),
    "spin_unlock_irqrestore": ("spin_unlock", {"word": "{0}"}, None),
    "spin_unlock_irq": ("spin_unlock", {"word": "{0}"}, None),
    "spin_unlock_bh": ("spin_unlock", {"word": "{0}"}, None),
    "raw_spin_unlock": ("spin_unlock", {"word": "{0}"}, None),
    "raw_spin_unlock_irqrestore": ("spin_unlock", {"word": "{0}"}, None),
    "this_cpu_inc": ("atomic_inc", {"word": "{0}"}, "job"),
    "this_cpu_dec": ("atomic_dec", {"word": "{0}"}, "job"),
    "this_cpu_add": ("atomic_add", {"word": "{0}", "n": "{1}"}, "job"),
    "this_cpu_sub": ("atomic_sub", {"word": "{0}", "n": "{1}"}, "job"),
    "this_cpu_add_return": ("atomic_add_return", {"word": "{0}",
                                                  "n": "{1}"}, "job"),
    "this_cpu_write": ("WRITE_ONCE", {"word": "{0}", "value": "{1}"},
                       "job"),
    "this_cpu_read": ("READ_ONCE", {"word": "{0}"}, "job"),
}
for _name in list(RENAMES):
    if _name.startswith("this_cpu_"):
        RENAMES["__" + _name] = RENAMES[_name]

# grammar rows that are no kernel function: never matched in a diff
NOT_KERNEL = ("work", "WRITE_ONCE_MAX")
# compiled out without CONFIG_DEBUG_VM / lockdep (include/linux/mmdebug.h,
# include/linux/lockdep.h): nothing runs
DEBUG = ("VM_WARN_ON", "VM_WARN_ON_ONCE", "VM_BUG_ON", "VM_BUG_ON_PAGE",
         "VM_BUG_ON_FOLIO", "VM_WARN_ON_ONCE_PAGE", "VM_WARN_ON_FOLIO",
         "lockdep_assert_held", "lockdep_assert_irqs_disabled")
# a comparison of times (include/linux/jiffies.h) and the clocks
TIME_COMPARES = ("time_after", "time_after_eq", "time_before",
                 "time_before_eq", "time_after64", "time_after_eq64",
                 "time_before64", "time_before_eq64", "time_in_range",
                 "time_is_after_jiffies", "time_is_before_jiffies")
CLOCKS = ("jiffies", "jiffies_64", "get_jiffies_64", "sched_clock",
          "sched_clock_cpu", "local_clock", "ktime_get", "ktime_get_ns",
          "ktime_get_mono_fast_ns", "rq_clock", "rq_clock_task")
# the running CPU, as a value
CPU_VALUES = ("smp_processor_id", "raw_smp_processor_id")


@functools.lru_cache(maxsize=None)
def constants():
    """{name: value} of every bit and time the declaration gives."""
    out = dict(TIMES)
    for prefix, bits in (("BH_", BH_BITS), ("PG_", PG_BITS),
                         ("AS_", AS_BITS)):
        out.update({prefix + b: i for i, b in enumerate(bits.split())})
    return out
