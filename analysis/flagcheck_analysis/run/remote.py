"""The runs of a flagcheck run command on fio servers (--hosts,
--client): before each run the hosts are asked whether they answer, the
live ones get their job files and run it through one `fio --client`, and
each host's results and counters are sorted out afterwards
(clientserver.py).  Nothing here pins, probes or calibrates: the CPUs
are not this machine's."""

import os
import shlex

from ..inputs import matrix
from . import clientserver
from ..guard import jobguard
from ..inputs import jobfile
from .executor import Executor, Status, env_words
from .progress import PROG


class Remote(Executor):
    @staticmethod
    def check_job(path, env, args):
        """Raises jobguard.Refused for a job that would write under /dev/
        or, without --allow-exec, has a server run a program."""
        jobguard.check_devices(path, env, remote=True)
        if not args.allow_exec:
            jobguard.check_exec(path, env)

    @staticmethod
    def clock(args):
        """Each server's own clock; the line probe runs on this machine:
        never for runs on fio servers."""
        return (None, "chosen by each fio server (--hosts)"), None

    @staticmethod
    def placements(args):
        return {}, [], {}

    @staticmethod
    def pinned(args):
        return False

    @staticmethod
    def ramp_s(args):
        return 0

    def __init__(self, args, progress=None, stopped=None):
        super().__init__(args, progress, stopped)
        self.live, self.down = list(args.hosts), []

    def command(self, run, output):
        """One `fio --client` for the live hosts."""
        fmt = "json+" if self.args.json_plus else "json"
        return clientserver.client_command(self.args, run, output, self.live,
                                           fmt)

    def _probe(self, run, entry):
        """Which hosts answer; names each down one."""
        self.live, self.down = clientserver.probe(self.args)
        for h, reason in self.down:
            self.progress.say("%s: host %s is down: %s; %s" % (
                PROG, h.spec, reason,
                "running %s on the other %d host(s)"
                % (matrix.run_name(run), len(self.live)) if self.live
                else "no host left to run %s" % matrix.run_name(run)),
                error=True)
        entry["hosts"] = clientserver.host_entries(self.live, self.down)

    def ready(self, run, entry):
        """The live hosts' job files written, or the Status of a run that
        cannot start."""
        name = matrix.run_name(run)
        self._probe(run, entry)
        if self.stopped():
            return Status.INTERRUPTED
        if not self.live:
            entry.update(rc=None, failure="%s did not run: no host "
                         "answered" % name, stderr_tail=[
                             "%s: %s" % (h.spec, r) for h, r in self.down])
            return Status.FAILED
        for path in clientserver.counters_paths(self.args, run):
            if os.path.exists(path):
                os.unlink(path)
        try:
            entry["job_files"] = clientserver.write_job_files(
                self.args, run, self.live)
        except (jobfile.JobFileError, OSError) as e:
            entry.update(rc=None, failure="%s did not run: no job "
                         "file for the hosts" % name, stderr_tail=[str(e)])
            return Status.FAILED
        return None

    def done(self, run, entry, out, kept):
        """The status of a run on several hosts that fio finished."""
        failed = clientserver.hosts_without_results(self.live, entry, out)
        live = [h for h in self.live if h not in failed]
        if live:
            clientserver.collect_counters(self.args, run, entry, live, out)
            return Status.PARTIAL if self.down or failed else Status.OK
        self._no_results(run, entry, out, kept, failed)
        return Status.FAILED

    def failed_everywhere(self, run, entry, partial, kept):
        """A client whose every server failed its job exits 0 or 1 as the
        servers' messages happen to arrive: either way it is the hosts'
        failure, said in their words."""
        if not os.path.exists(partial):
            return False
        failed = clientserver.hosts_without_results(self.live, entry,
                                                    partial)
        if len(failed) < len(self.live):
            return False
        self._no_results(run, entry, partial, kept, failed)
        return True

    @staticmethod
    def _no_results(run, entry, out, kept, failed):
        """Nothing a resume or the report could take for a result: the
        output kept aside, the servers' words in the entry."""
        os.replace(out, kept)
        entry.update(failure="%s: no job results from any host; what "
                     "the servers said (all of it in %s)"
                     % (matrix.run_name(run), os.path.basename(kept)),
                     failed_output=os.path.basename(kept),
                     stderr_tail=["%s: %s" % (h.spec, line)
                                  for h in failed for line in
                                  entry["hosts"][h.label]["reason"]])

    def counters_paths(self, run):
        return super().counters_paths(run) + clientserver.counters_paths(self.args,
                                                                   run)

    def timeout_reason(self):
        return "a host answered but did not finish (hosts: %s)" % ", ".join(
            h.spec for h in self.live)

    def dry_run(self, run, out):
        """--dry-run's lines of one run: each host's job file and where
        its variables come from, and the fio --client command."""
        lines = ["# %s gets %s, ${VARS} expanded from: %s" % (
            h.spec, matrix.host_job_path(self.args.outdir, run, h.label),
            env_words(self.env(run, h))) for h in self.args.hosts]
        return lines + [" ".join(shlex.quote(c) for c in
                                 self.command(run, out))]
