#!/bin/bash
# Fetch the source of the fio that is installed (Debian's package) into a
# build directory and configure it the way Debian builds its fio, so that the
# engine compiles against the exact headers and config-host.h of the fio that
# will load it.
#
# The deb-src entries are derived from this machine's own apt configuration
# (the "deb" entries of the running Debian release), written into a private
# apt state directory under the build directory: no system file is touched.
#
# usage: scripts/fio-source.sh BUILD_DIR
#        scripts/fio-source.sh --suite SUITE DIR
# prints the path of the configured source tree on stdout.
#
# The second form fetches the fio source of another Debian suite (trixie,
# sid, ...) from the same archive URIs, with the suite name replaced, into
# DIR (its apt state in DIR/apt), whatever fio is installed.
set -euo pipefail

die() { echo "fio-source: $*" >&2; exit 1; }

suite=
if [ "${1:-}" = --suite ]; then
	suite=${2:?usage: fio-source.sh --suite SUITE DIR}
	shift 2
fi
build=${1:?usage: fio-source.sh BUILD_DIR | --suite SUITE DIR}
mkdir -p "$build"
build=$(cd "$build" && pwd)

# debian/rules: ./configure --prefix=/usr --disable-native
configure_tree() {
	echo "fio-source: configuring $1 as debian/rules does" >&2
	(cd "$1" && ./configure --prefix=/usr --disable-native >&2)
}

command -v dpkg-query >/dev/null || die "dpkg-query not found: this script needs a Debian-based system (or use make FIO_SRC=/path/to/fio)"
if [ -z "$suite" ]; then
	ver=$(dpkg-query -W -f='${Version}' fio 2>/dev/null || true)
	[ -n "$ver" ] || die "Debian's fio package is not installed (apt-get install fio), or pass FIO_SRC=/path/to/fio-tree"
	upstream=${ver%-*}
	tree="$build/fio-src/fio-$upstream"
	stamp="$tree/.flagcheck-configured-$ver"
	if [ -f "$stamp" ]; then
		echo "$tree"
		exit 0
	fi
fi

. /etc/os-release
codename=${VERSION_CODENAME:?no VERSION_CODENAME in /etc/os-release}

apt="$build/apt"
rm -rf "$apt"
mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$apt/sources.list.d"
: >"$apt/sources.list"

# deb822 .sources files: keep the stanzas of this release, Types -> deb-src
for f in /etc/apt/sources.list.d/*.sources; do
	[ -e "$f" ] || continue
	awk -v rel="$codename" -v to="$suite" '
	function flush() {
		if (buf != "" && keep) printf "%s\n", buf
		buf = ""; keep = 0
	}
	/^[ \t]*$/ { flush(); next }
	/^#/ { next }
	/^Types:/ { buf = buf "Types: deb-src\n"; next }
	/^Suites:/ {
		n = split($0, s, /[ \t]+/)
		for (i = 2; i <= n; i++)
			if (s[i] == rel || (to == "" && index(s[i], rel "-") == 1))
				keep = 1
		if (to != "") { buf = buf "Suites: " to "\n"; next }
	}
	{ buf = buf $0 "\n" }
	END { flush() }' "$f" >>"$apt/sources.list.d/derived.sources"
done
# one-line format
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
	[ -e "$f" ] || continue
	awk -v rel="$codename" -v to="$suite" '
	$1 == "deb" {
		for (i = 2; i <= NF; i++) {
			if ($i ~ /^\[/) continue
			uri = i; break
		}
		suite = $(uri + 1)
		if (to != "" && suite == rel) {
			$(uri + 1) = to; $1 = "deb-src"; print
		} else if (to == "" && (suite == rel || index(suite, rel "-") == 1)) {
			sub(/^deb/, "deb-src"); print
		}
	}' "$f" >>"$apt/sources.list"
done
[ -s "$apt/sources.list" ] || [ -s "$apt/sources.list.d/derived.sources" ] ||
	die "no apt entries for release $codename found in /etc/apt"

aptopts=(-o "Dir::Etc::SourceList=$apt/sources.list"
	-o "Dir::Etc::SourceParts=$apt/sources.list.d"
	-o "Dir::State::Lists=$apt/lists"
	-o "Dir::Cache::Archives=$apt/archives"
	-o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache="
	-o "APT::Sandbox::User=root")

apt-get "${aptopts[@]}" -q update >&2 || die "apt-get update of the derived deb-src entries failed"
if [ -n "$suite" ]; then
	ver=$(apt-get "${aptopts[@]}" -q source --print-uris fio 2>/dev/null |
		sed -n "s/^'.*' fio_\([^ ]*\)\.dsc .*/\1/p" | head -n1)
	[ -n "$ver" ] || die "Debian's $suite serves no source of fio"
	upstream=${ver%-*}
	tree="$build/fio-src/fio-$upstream"
	if [ -f "$tree/.flagcheck-configured-$ver" ]; then
		echo "$tree"
		exit 0
	fi
fi
echo "fio-source: fetching Debian source of fio $ver (${suite:-$codename})" >&2
rm -rf "$build/fio-src"
mkdir -p "$build/fio-src"
(cd "$build/fio-src" && apt-get "${aptopts[@]}" -q source "fio=$ver" >&2) ||
	die "apt-get source fio=$ver failed"
[ -d "$tree" ] || die "expected $tree after apt-get source"

configure_tree "$tree"
touch "$tree/.flagcheck-configured-$ver"
echo "$tree"
