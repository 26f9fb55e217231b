#!/bin/bash
# The S1 scaling sweep on a bigger machine that has no fio and no network,
# from the bundle of scripts/device-bundle.sh (make device-bundle), in one
# go: numjobs 1, 2, 4, 8, 16 x always/test_first x 3 interleaved repeats of
# 3 s, about 2 minutes. Builds nothing.
#
# usage: scripts/device-sweep.sh OUTDIR [flagcheck-run options...]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: device-sweep.sh OUTDIR [flagcheck-run options]}
shift
bundle=${BUNDLE:-$top/build/device}
export LD_LIBRARY_PATH=$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
"$bundle/fio" --version
python3 "$top/analysis/flagcheck-run" --fio "$bundle/fio" \
	--set FLAGCHECK_ENGINE="$bundle/fio-flagcheck.so" \
	--numjobs 1,2,4,8,16 --repeats 3 --runtime 3 --quiet \
	--outdir "$out" "$@" "$top/jobs/filemap-odirect-read.fio"
# plots need matplotlib, which the machine may lack: make them here later
python3 "$top/analysis/flagcheck-report" --no-plot "$out"
