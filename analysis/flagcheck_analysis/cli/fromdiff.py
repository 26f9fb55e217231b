"""flagcheck from-diff's command line: a kernel patch into a model=pattern
job file (fromdiff/, docs/your-patch.md "From a diff")."""

import os
import sys

from .. import width
from . import argparser
from ..fromdiff import build, jobtext, kernelnames, translate
from ..inputs import pahole, patchfile, safewrite, textfile

PROG = "flagcheck from-diff"

EPILOG = """\
Writes the code before (pattern=) and after (pattern_fixed=), the counters each variant must give (; expect:),
the source and every assumption; each statement not translated is printed here and named in the job's header.
example: flagcheck from-diff fix.patch -o mine.fio && flagcheck run mine.fio --until-decided
exit status: 0 written, 1 not a diff or no hot-path change (no job file written), 2 usage error.
In full: docs/your-patch.md (From a diff)."""


def build_parser():
    p = argparser.ArgumentParser(
        prog=PROG, description="A kernel patch of the family (a git "
        "format-patch mail, git show output or a unified diff) into a "
        "model=pattern job file.", epilog=EPILOG)
    p.add_argument("patch", metavar="PATCH", help="the patch file")
    p.add_argument("-o", dest="output", metavar="JOB",
                   help="the job file to write (default: PATCH's name "
                   "with .fio, here; - for stdout)")
    p.add_argument("--layout", nargs=2, metavar=("BEFORE", "AFTER"),
                   help="pahole's output of the changed struct before and "
                   "after: each word on its line")
    return p


def output_path(args):
    if args.output:
        return args.output
    base = os.path.splitext(os.path.basename(args.patch))[0] or "patch"
    return base + ".fio"


def fail(message):
    print(width.wrap("%s: %s" % (PROG, textfile.printable(message))),
          file=sys.stderr)
    return 1


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        patch = patchfile.read(args.patch)
        layouts = tuple(pahole.read(p) for p in args.layout) \
            if args.layout else None
        t = build.translation(patch, layouts)
        text = jobtext.text(t)
    except (patchfile.PatchError, pahole.PaholeError, translate.NoPathError,
            kernelnames.TableError) as e:
        return fail(str(e))
    out = output_path(args)
    for s in t.skips:
        print(width.wrap("%s: not translated: %s:%d: %s" % (
            PROG, os.path.basename(patch.path), s.line,
            textfile.printable(s.why))), file=sys.stderr)
    if out == "-":
        sys.stdout.write(text)
        return 0
    try:
        safewrite.write(out, text)
    except OSError as e:
        return fail("%s: cannot write: %s" % (out, e.strerror or e))
    print(width.wrap("%s: wrote %s: %d operations before, %d after, %d "
                     "assumptions, %d statements not translated (its "
                     "header says which)" % (
                         PROG, out, len(t.before), len(t.after),
                         len(t.assumptions) + len(jobtext.assumed_lines(t)),
                         len(t.skips))))
    return 0
