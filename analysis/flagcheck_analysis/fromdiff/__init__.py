"""flagcheck from-diff: a kernel patch of the family into a model=pattern
job file.  ctext.py reads the C of each side of a hunk (calls, the
conditions that guard them, early exits), kernelnames.py is the one table
from the kernel's names to the grammar's operations, translate.py builds
the path before and after the patch, jobtext.py writes the job file and
its `; expect:` line.  The rules: docs/your-patch.md ("From a diff")."""
