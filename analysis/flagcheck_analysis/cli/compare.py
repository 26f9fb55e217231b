"""flagcheck compare A B: report's --compare A B under a name of its own
(docs/analysis.md, flagcheck report --compare)."""

from . import report


def build_parser():
    return report.build_parser(as_compare=True)


def main(argv=None):
    return report.main(argv, as_compare=True)
