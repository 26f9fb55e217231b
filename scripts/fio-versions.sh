#!/bin/bash
# The fio version matrix (make check-fio-versions): for each fio below,
# fetch its source, configure it as Debian does and build its fio binary;
# build the engine against that tree's own headers and config-host.h; run
# the version-sensitive tests under that fio binary (pytest --fio); then
# print a table, version x passed/failed/skipped.
#
#   3.36, 3.42  release tarballs (git archive of fio's tags) in TARBALLS,
#               checked against TARBALLS/SHA256SUMS
#   3.39, 3.41  Debian's source packages of trixie and sid (fio-source.sh
#               --suite), or a tarball fio-VERSION.tar.gz in TARBALLS where
#               the archive does not serve them
#
# A version whose source is absent is skipped with a line saying why; a
# skip does not fail the matrix, a failed build or test does.  Each fio is
# built once, in BUILD/fio-versions/VERSION, and kept: a second run builds
# nothing but what changed in the engine.
#
# usage: scripts/fio-versions.sh BUILD [VERSION...]
#   TARBALLS  a directory of release tarballs fio-VERSION.tar.gz and their
#             SHA256SUMS (default: none; the versions that need one skip)
#   PYTHON    (default: /usr/bin/python3)   JOBS (make -j, default: 2)
#   FIO_OPT   fio's optimisation (default: -O1, which builds faster than
#             fio's own -O3; empty: fio's own; no layout depends on it)
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: fio-versions.sh BUILD [VERSION...]}
shift
mkdir -p "$build"
build=$(cd "$build" && pwd)
tarballs=${TARBALLS:-}
python=${PYTHON:-/usr/bin/python3}
jobs=${JOBS:-2}
fio_opt=${FIO_OPT--O1}

# version -> where Debian ships it (empty: a release tarball only)
declare -A SUITE=([3.39]=trixie [3.41]=sid)
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(3.36 3.39 3.41 3.42)

# The tests that depend on fio's version: the engine's counts against fio's
# total_ios on every backend (iodepth 1 to 64, the ramp edge), fio's verify
# on every backend, every job file's short run, the refusal of an engine
# built for other headers, offload (the engine reads fio's workqueue), and a
# two-server client/server report.
TESTS=("tests/test_engine_invariants.py::test_engine_counts_equal_fios"
	"tests/test_engine_invariants.py::test_exactly_once_at_depth_32_and_64_headline"
	"tests/test_engine_invariants.py::test_counts_restart_with_fios_after_ramp_time"
	"tests/test_engine_invariants.py::test_counts_agree_when_the_job_ends_at_the_ramps_end"
	"tests/test_engine_backends.py::test_verify_is_clean"
	"tests/test_engine_core.py::test_version_skew_is_refused"
	"tests/test_engine_core.py::test_engine_builds_with_clang"
	"tests/test_engine_jobs.py::test_job_file_runs_on_the_embedded_default"
	"tests/test_engine_offload.py"
	"tests/analysis/test_clientserver.py::TestTwoServers")
# the models do not depend on fio: the full count matrix with one of them
SELECT="not test_engine_counts_equal_fios or filemap_check_errors"

say() { echo "fio-versions: $*" >&2; }

# The tarball of fio $1 in $tarballs, its checksum verified: its path, or
# nothing (and why, on stderr).
tarball_of() {
	local tgz="$tarballs/fio-$1.tar.gz"

	if [ -z "$tarballs" ]; then
		say "fio $1: no tarball directory given (TARBALLS=DIR, make FIO_TARBALLS=DIR)"
		return 1
	fi
	if [ ! -f "$tgz" ]; then
		say "fio $1: no $tgz"
		return 1
	fi
	if ! grep -q " fio-$1.tar.gz\$" "$tarballs/SHA256SUMS" 2>/dev/null; then
		say "fio $1: $tgz has no line in $tarballs/SHA256SUMS"
		return 1
	fi
	if ! (cd "$tarballs" && grep " fio-$1.tar.gz\$" SHA256SUMS |
	      sha256sum --quiet -c - >&2); then
		say "fio $1: $tgz does not match its SHA256SUMS line"
		return 1
	fi
	echo "$tgz"
}

# The configured source tree of fio $1 under $2: its path on stdout.
fetch_tree() {
	local ver=$1 dir=$2 tgz tree

	if [ -f "$dir/tree.path" ] && [ -f "$(cat "$dir/tree.path")/config-host.h" ]; then
		cat "$dir/tree.path"
		return 0
	fi
	tree=
	if [ -n "${SUITE[$ver]:-}" ]; then
		say "fio $ver: Debian's ${SUITE[$ver]} source"
		tree=$("$top/scripts/fio-source.sh" --suite "${SUITE[$ver]}" "$dir/debian") ||
			{ say "fio $ver: Debian's ${SUITE[$ver]} source could not be fetched"; tree=; }
		if [ -n "$tree" ] && [ "$(basename "$tree")" != "fio-$ver" ]; then
			say "fio $ver: Debian's ${SUITE[$ver]} now serves $(basename "$tree"), not fio-$ver"
			tree=
		fi
	fi
	if [ -z "$tree" ]; then
		tgz=$(tarball_of "$ver") || return 1
		rm -rf "$dir/src"
		mkdir -p "$dir/src"
		tar -xzf "$tgz" -C "$dir/src" || return 1
		tree="$dir/src/fio-$ver"
		[ -d "$tree" ] || { say "fio $ver: $tgz holds no fio-$ver/"; return 1; }
		# as debian/rules and fio-source.sh configure it
		(cd "$tree" && ./configure --prefix=/usr --disable-native >"$dir/configure.log" 2>&1) ||
			{ say "fio $ver: configure failed, see $dir/configure.log"; return 1; }
	fi
	echo "$tree" >"$dir/tree.path"
	echo "$tree"
}

# Build fio $1 (tree $2, once) and the engine against it: 0 when both built.
build_all() {
	local ver=$1 tree=$2 dir=$3

	# fio.built holds the FIO_OPT it was built with
	if [ ! -x "$tree/fio" ] || [ ! -f "$dir/fio.built" ] ||
	   [ "$(cat "$dir/fio.built")" != "$fio_opt" ]; then
		say "fio $ver: building fio (make -j$jobs fio ${fio_opt:--O3}, log in $dir/fio-build.log)"
		rm -f "$dir/fio.built"
		{ make -C "$tree" clean &&
		  make -C "$tree" -j"$jobs" ${fio_opt:+CONFIG_FIO_NO_OPT=y \
			EXTFLAGS="$fio_opt"} fio; } >"$dir/fio-build.log" 2>&1 ||
			{ say "fio $ver: fio's build failed, see $dir/fio-build.log"; return 1; }
		echo "$fio_opt" >"$dir/fio.built"
	fi
	# the engine's make finds the tree as it finds fio-source.sh's
	mkdir -p "$dir/build"
	[ "$(cat "$dir/build/fio-src.path" 2>/dev/null)" = "$tree" ] ||
		echo "$tree" >"$dir/build/fio-src.path"
	[ "$dir/build/fio-src.path" -nt "$top/scripts/fio-source.sh" ] ||
		touch "$dir/build/fio-src.path"
	make -C "$top" -s -j"$jobs" BUILD="$dir/build" all \
		"$dir/build/fio-flagcheck-skew.so" "$dir/build/clang.ok" \
		>"$dir/engine-build.log" 2>&1 ||
		{ say "fio $ver: the engine does not build against it, see $dir/engine-build.log"; return 1; }
}

# fio $1 refuses the engine $2, built for another fio, at load, with the
# engine's line naming both versions and fio's own refusal. Nothing to do
# where both are the same version or $2 was not built.
refused() {
	local fio=$1 engine=$2 built running out

	built=$(cat "$(dirname "$engine")/fio-version" 2>/dev/null) || return 0
	[ -f "$engine" ] || return 0
	running=$("$fio" --version) || return 1
	[ "$built" != "$running" ] || return 0
	out=$(cd /tmp && "$fio" --name=t --ioengine="external:$engine" \
		--size=1m --filename=flagcheck-foreign 2>&1)
	if [ $? -ne 0 ] &&
	   grep -q "built against the headers of $built but loaded by $running" <<<"$out" &&
	   grep -q "^fio: failed to load engine" <<<"$out"; then
		say "$running refuses the engine built for $built"
		return 0
	fi
	say "$running did not refuse the engine built for $built as it should:"
	echo "$out" >&2
	return 1
}

declare -A RESULT WHY
start=$(date +%s)
for ver in "${versions[@]}"; do
	t0=$(date +%s)
	dir="$build/fio-versions/$ver"
	mkdir -p "$dir"
	if ! tree=$(fetch_tree "$ver" "$dir"); then
		RESULT[$ver]=skipped
		WHY[$ver]="no source (see above)"
		say "fio $ver: skipped, its source is not here"
		continue
	fi
	if ! build_all "$ver" "$tree" "$dir"; then
		RESULT[$ver]=failed
		WHY[$ver]="build"
		continue
	fi
	fio="$tree/fio"
	say "fio $ver: $("$fio" --version) from $tree"
	# the default build's engine (the fio on PATH) under this fio, and
	# this one's under that fio
	if ! refused "$fio" "$build/fio-flagcheck.so" ||
	   ! { ! command -v fio >/dev/null ||
	       refused "$(command -v fio)" "$dir/build/fio-flagcheck.so"; }; then
		RESULT[$ver]=failed
		WHY[$ver]="a foreign engine loaded"
		continue
	fi
	"$python" -m pytest -q -p no:cacheprovider --build="$dir/build" \
		--fio="$fio" -k "$SELECT" "${TESTS[@]}" 2>&1 | tee "$dir/pytest.log" | tail -n 5 >&2
	if [ "${PIPESTATUS[0]}" -eq 0 ]; then
		RESULT[$ver]=passed
	else
		RESULT[$ver]=failed
	fi
	WHY[$ver]="$(grep -E '^[0-9]+ (passed|failed)|^=+ .*(passed|failed)' "$dir/pytest.log" |
		tail -n1 | tr -d '=' | sed 's/^ *//; s/ *$//'), $(($(date +%s) - t0)) s"
done

rc=0
echo
echo "fio version matrix ($(($(date +%s) - start)) s)"
printf '%-8s %-8s %s\n' version result detail
for ver in "${versions[@]}"; do
	printf '%-8s %-8s %s\n' "$ver" "${RESULT[$ver]}" "${WHY[$ver]}"
	[ "${RESULT[$ver]}" != failed ] || rc=1
done
exit $rc
