#!/bin/bash
# The S1 scaling sweep on a bigger machine that has no fio and no network,
# from the bundle of scripts/device-bundle.sh (make device-bundle), in one
# go: numjobs 1, 2, 4, 8, 16 x always/test_first x 3 interleaved repeats of
# 3 s, about 2 minutes. Builds nothing.
#
# usage: scripts/device-sweep.sh OUTDIR [flagcheck run options...]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: device-sweep.sh OUTDIR [flagcheck run options]}
shift
bundle=${BUNDLE:-$top/build/device}
export LD_LIBRARY_PATH=$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
"$bundle/fio" --version
# flagcheck run's calibration and line probe run build/flagcheck-calibrate:
# a carried bundle has it where a build would
if [ ! -x "$top/build/flagcheck-calibrate" ]; then
	mkdir -p "$top/build"
	cp "$bundle/flagcheck-calibrate" "$top/build/"
fi
# the system's python3, with its numpy and scipy, never whichever is first
# on PATH (a separate install may lack them); PYTHON=... to choose another
python=${PYTHON:-/usr/bin/python3}
"$python" "$top/analysis/flagcheck run" --fio "$bundle/fio" \
	--set FLAGCHECK_ENGINE="$bundle/fio-flagcheck.so" \
	--numjobs 1,2,4,8,16 --repeats 3 --runtime 3 --quiet \
	--outdir "$out" "$@" "$top/jobs/filemap-odirect-read.fio"
# plots need matplotlib, which the machine may lack: make them here later
"$python" "$top/analysis/flagcheck report" --no-plot "$out"
