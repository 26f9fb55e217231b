#!/bin/bash
# Bundle what a machine without fio needs to run the job pack: the fio built
# from the engine's own source tree (make fio), the engine, and every shared
# library they load that a stock distribution may lack (libaio, liburing,
# libnuma, rdma, ...), with LD_LIBRARY_PATH pointing at them.
#
# flagcheck-calibrate goes too (libc only): flagcheck run's calibration and
# line probe run it.
#
# usage: scripts/device-bundle.sh BUILD_DIR    -> BUILD_DIR/device/{fio,fio-flagcheck.so,flagcheck-calibrate,lib/}
set -euo pipefail
build=${1:?usage: device-bundle.sh BUILD_DIR}
out=$build/device
rm -rf "$out"
mkdir -p "$out/lib"
cp "$build/fio" "$build/fio-flagcheck.so" "$build/flagcheck-calibrate" "$out/"
# libc and friends come with every system; the rest travels
ldd "$build/fio" "$build/fio-flagcheck.so" |
	awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u |
	grep -Ev '/(libc|libm|libmvec|libpthread|libdl|librt|ld-linux[^/]*)\.so' |
	while read -r lib; do cp -L "$lib" "$out/lib/"; done
echo "device bundle in $out:" >&2
ls "$out" "$out/lib" >&2
