"""Running the real fio with the built engine: what the engine tests share.

A Context (the session's `ctx` fixture, made in conftest.py) knows the build
directory, the engine, fio and a scratch area under the build directory.
Every fio run happens in an empty scratch directory, which must stay empty:
the null backend writes nothing. A plain module, not a test module, so that
the benchmarks and any script can use it too.
"""
import json
import os
import shutil
import subprocess
import tempfile

from flagcheck_analysis.run import proctree

# the I/Os per job of count_args(): about 20 ms of the null backend
IOS = 2000


def run_program(argv, timeout=120):
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout, text=True)
    except subprocess.TimeoutExpired as e:
        return -1, f"timed out after {timeout}s\n{e.output or ''}"
    return p.returncode, p.stdout


def backtraces(pids):
    """gdb's backtrace of every thread of each process of pids (a hung fio
    and its job processes), or why there is none."""
    if not shutil.which("gdb"):
        return "(no gdb: apt-get install gdb for backtraces of a hang)"
    out = []
    for pid in pids:
        try:
            p = subprocess.run(["gdb", "-batch", "-p", str(pid), "-ex",
                                "thread apply all bt"], capture_output=True,
                               text=True, timeout=120)
            out.append(f"=== pid {pid}\n{p.stdout}{p.stderr}")
        except subprocess.TimeoutExpired:
            out.append(f"=== pid {pid}: gdb did not finish in 120 s")
    return "\n".join(out)


def stop_hung(pid):
    """A fio that did not end: the backtraces of it and of its job
    processes (each in a session of its own: fio's process group does not
    hold them), then SIGKILL to every one."""
    bt = backtraces([pid] + proctree.descendants(pid))
    proctree.kill_tree(pid)
    return bt


def load_fio_json(text):
    """fio 3.33 may print text lines before its JSON."""
    i = text.find("\n{")
    start = 0 if text.startswith("{") else (i + 1 if i >= 0 else -1)
    assert start >= 0, f"no JSON in fio output:\n{text[:2000]}"
    return json.loads(text[start:])


class Result:
    def __init__(self, rc, out, err, stats):
        self.rc, self.out, self.err, self.stats = rc, out, err, stats

    def json(self):
        return load_fio_json(self.out)

    def total_err(self):
        return sum(j["total_err"] for j in self.json()["jobs"])

    def sum(self, key, **match):
        return sum(s[key] for s in self.stats
                   if all(s.get(k) == v for k, v in match.items()))


class Context:
    def __init__(self, build, fio=None):
        """fio: the fio binary (default: fio on PATH), as --fio gives it."""
        self.build = build
        self.engine = os.path.join(build, "fio-flagcheck.so")
        self.fio = fio or shutil.which("fio")
        # one scratch area a pytest-xdist worker: the tests' fixed names
        # (a shaped job file, a log) never meet another worker's
        self.tmp = os.path.join(build, "tests", os.environ.get(
            "PYTEST_XDIST_WORKER", "main"))
        self.jobfiles = []
        os.makedirs(self.tmp, exist_ok=True)
        assert self.fio, "fio not found on PATH (make check installs it)"
        assert os.path.exists(self.engine), f"{self.engine} missing: run make"

    def scratch(self):
        return tempfile.mkdtemp(prefix="run-", dir=self.tmp)

    def build_c(self, name, source, *cflags):
        """A helper program or library compiled from source into the
        scratch area (again when its source changed): its path, or None
        without a C compiler."""
        out, src = os.path.join(self.tmp, name), os.path.join(self.tmp,
                                                              name + ".c")
        try:
            with open(src) as f:
                same = f.read() == source
        except FileNotFoundError:
            same = False
        if not same or not os.path.exists(out):
            cc = shutil.which("cc") or shutil.which("gcc")
            if not cc:
                return None
            # each under a name of its own, then renamed: another pytest
            # worker may build or run the same program meanwhile
            tag = ".%d.tmp" % os.getpid()
            with open(src + tag, "w") as f:
                f.write(source)
            rc, text = run_program([cc, "-O2", "-o", out + tag, "-x", "c",
                                    src + tag] + list(cflags))
            assert rc == 0, text
            os.replace(out + tag, out)
            os.replace(src + tag, src)
        return out

    def jobfile(self, text):
        """A job file of text in the scratch area, removed by cleanup()."""
        fd, path = tempfile.mkstemp(suffix=".fio", dir=self.tmp)
        with os.fdopen(fd, "w") as f:
            f.write(text)
        self.jobfiles.append(path)
        return path

    def cleanup(self):
        """At the session's end: the job files jobfile() wrote."""
        for path in self.jobfiles:
            if os.path.exists(path):
                os.unlink(path)

    def fio_run(self, args, engine=None, timeout=120, stats=True, env=None):
        """Run fio with JSON output in an empty directory (env: its
        environment, default ours); return a Result."""
        cwd = self.scratch()
        statsfile = os.path.join(self.tmp, os.path.basename(cwd) + ".jsonl")
        argv = [self.fio, "--output-format=json"] + args
        # a job file names it as ${FLAGCHECK_STATS}; fio only takes engine
        # options on its command line when the engine is named there too
        if stats and any(a.startswith("--ioengine=") for a in args):
            argv.append(f"--flagcheck_stats={statsfile}")
        env = dict(env or os.environ, FLAGCHECK_ENGINE=engine or self.engine,
                   FLAGCHECK_STATS=statsfile)
        p = subprocess.Popen(argv, cwd=cwd, env=env, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=True)
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            bt = stop_hung(p.pid)
            p.communicate(timeout=60)
            raise AssertionError(f"fio did not finish in {timeout}s: {argv}\n"
                                 f"its threads when it was stopped:\n{bt}")
        p = subprocess.CompletedProcess(argv, p.returncode, out, err)
        assert p.returncode >= 0, \
            f"fio died of signal {-p.returncode}: {argv}\n{p.stderr}"
        left = os.listdir(cwd)
        assert not left, f"the run wrote files in its directory: {left}"
        os.rmdir(cwd)
        stats_lines = []
        if stats and os.path.exists(statsfile):
            with open(statsfile) as f:
                stats_lines = [json.loads(line) for line in f]
            os.unlink(statsfile)
        return Result(p.returncode, p.stdout, p.stderr, stats_lines)

    def base_args(self, **opts):
        """One job for a second of time (time_based): for a test about
        time (jobs that must run together, a run that is stopped); an
        option of None is left out."""
        o = {"name": "t", "ioengine": f"external:{self.engine}",
             "filename": "flagcheck-shared", "size": "1g", "bs": "4k",
             "rw": "randread", "time_based": "1", "runtime": "1"}
        o.update({k: None if v is None else str(v) for k, v in opts.items()})
        return [f"--{k}={v}" for k, v in o.items() if v is not None]

    def count_args(self, ios=IOS, **opts):
        """One job that ends after @ios I/Os per job (number_ios), however
        fast it runs: for a test about counts, which holds for any number
        of I/Os."""
        return self.base_args(**dict({"time_based": None, "runtime": None,
                                      "number_ios": ios}, **opts))


def fio_version(fio):
    """What `fio --version` prints, e.g. fio-3.33."""
    return subprocess.run([fio, "--version"], capture_output=True,
                          text=True).stdout.strip()


def shm_entries():
    try:
        return set(os.listdir("/dev/shm"))
    except FileNotFoundError:
        return set()


def ok(r):
    assert r.rc == 0, f"fio exit {r.rc}\nstderr:\n{r.err}\nstdout:\n{r.out[:3000]}"


def engine_help(fio, engine):
    """The engine's options and their help, as `fio --enghelp` prints them
    ({name: help}): the listings in them are built from the engine's own
    tables (fc_models[], fc_backends[]), so the tests find every model and
    backend there."""
    p = subprocess.run([fio, f"--enghelp={engine}"], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
    opts = {}
    for line in p.stdout.splitlines():
        name, sep, text = line.partition(": ")
        if sep:
            opts[name.strip()] = text
    return opts


def _listing(text):
    """'lead (...): a: x; b: y' -> [('a', 'x'), ('b', 'y')]"""
    items = text.split("): ", 1)[1].split("; ")
    return [tuple(i.split(": ", 1)) if ": " in i else (i, "") for i in items]


def engine_models(fio, engine):
    """The engine's models, in its order."""
    return [m for m, _ in _listing(engine_help(fio, engine)["model"])]


def engine_backends(fio, engine):
    """The engine's backends, in its order."""
    return [b for b, _ in _listing(engine_help(fio, engine)["backend"])]


def engine_variants(fio, engine):
    """{model: (its variant's choices, its default)} from variant='s help."""
    out = {}
    for model, text in _listing(engine_help(fio, engine)["variant"]):
        choices, _, default = text.rpartition(" (")
        out[model] = (choices.split(", "), default.rstrip(")"))
    return out


def listed_for_collection(config):
    """(models, backends) the built engine lists, for a test module's
    pytest_generate_tests; (["<engine not built>"], ...) when it cannot
    say, so that the tests fail rather than vanish."""
    build = os.path.normpath(os.path.join(str(config.rootpath),
                                          config.getoption("--build")))
    # the fio of this test run (--fio, which conftest.py puts in the
    # environment), else the one on PATH
    fio = os.environ.get("FLAGCHECK_TEST_FIO") or shutil.which("fio")
    engine = os.path.join(build, "fio-flagcheck.so")
    if not fio or not os.path.exists(engine):
        return ["<engine not built>"], ["<engine not built>"]
    return engine_models(fio, engine), engine_backends(fio, engine)
