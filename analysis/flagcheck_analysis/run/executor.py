"""Where the runs of one flagcheck run command happen: on this machine
(local.Local) or on fio servers (remote.Remote, --hosts/--client), chosen
once when the arguments are checked (config.py).  The checks ask the
chosen one what the arguments mean there; the runner drives either
through the same few calls, and each run ends in a Status."""

import enum
import shlex

from ..inputs import expect, matrix


class Status(enum.Enum):
    """A run's "status" in the manifest."""
    PENDING = "pending"         # not run yet
    OK = "ok"                   # its results are there: done
    PARTIAL = "partial"         # some hosts ran it: kept, run again
    FAILED = "failed"
    INTERRUPTED = "interrupted"


def env_words(env):
    return " ".join("%s=%s" % (k, shlex.quote(v)) for k, v in env.items())


class Executor:
    """The runs of one command.  What the arguments mean here (class
    methods, for config.py): check_job(), parse_error(), clock(),
    placements(), pinned(), ramp_s().  Per run the runner calls ready(), command(), env(),
    before(); fio runs; after(), then done() when fio ended well, else
    counters_paths() (removed), failed_everywhere() and, after
    --run-timeout, timeout_reason().
    calibrate() once before the runs, dry_run() for --dry-run."""

    def __init__(self, args, progress=None, stopped=None):
        """@progress: a progress.Progress for what it says; @stopped: a
        function, true once the runner is stopping."""
        self.args, self.progress, self.stopped = args, progress, stopped

    @staticmethod
    def parse_error(path, env, args):
        """None where the job file parses with @env as the runs' fio
        will parse it, else one line saying why (where it can be known
        before the runs)."""
        return None

    def env(self, run, host=None):
        """The job files' variables for one run (and one host: each host
        has its own stats file)."""
        return matrix.run_env(self.args.vars, self.args.outdir, run,
                              None if host is None else host.label)

    def expect_failures(self, run, records):
        """One line per term of the job file's expect line that @run's
        counter @records break (inputs/expect.py), [] without a line."""
        found = self.args.expects.get(run.scenario)
        if found is None or not records:
            return []
        return expect.failures(found, self.args.scenarios[run.scenario],
                               records)

    def ready(self, run, entry):
        """None when @run can start, else the Status it ends with."""
        return None

    def before(self, run, entry):
        """Right before fio starts."""

    def after(self, entry):
        """Right after fio ended."""

    def failed_everywhere(self, run, entry, partial, kept):
        """True where fio, ended non-zero, left output that says why
        better than its exit status (the entry then says it)."""
        return False

    def counters_paths(self, run):
        """The run's engine stats files, removed when fio failed."""
        return [matrix.counters_path(self.args.outdir, run)]

    def calibrate(self):
        """The manifest's fields of a calibration before the runs; {}
        where none was made."""
        return {}
