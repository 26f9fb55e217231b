#!/bin/bash
# Install the Debian packages flagcheck needs, only those that are missing.
#
#   fio                         the fio that loads the engine
#   dpkg-dev                    apt-get source (fio's matching source tree)
#   gcc make clang              building; the engine is checked with both
#   binutils procps             nm, readelf, pgrep in the tests
#   gdb                         the backtraces of a fio that does not finish in a test
#   libaio-dev liburing-dev     the real I/O backends
#   zlib1g-dev libnuma-dev      configure fio's tree as Debian does: these
#   librdmacm-dev libibverbs-dev  change fio's struct layouts (io_u, thread_data)
#   python3 python3-matplotlib  the analysis (Debian's own python3)
#   python3-pytest              make check runs the tests with it
#   python3-pytest-timeout      a test that hangs fails (pytest.ini's timeout)
#   python3-pytest-xdist        make check runs the tests on one worker per CPU (-n)
#   python3-scipy               Welch's t-test, the bootstrap, the USL fit
set -euo pipefail

pkgs=(fio dpkg-dev gcc make clang libc6-dev pkg-config binutils procps gdb
	libaio-dev liburing-dev zlib1g-dev libnuma-dev librdmacm-dev
	libibverbs-dev python3 python3-matplotlib python3-pytest python3-pytest-timeout
	python3-pytest-xdist python3-scipy)

missing=()
for p in "${pkgs[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$st" = installed ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	sudo=sudo
	command -v sudo >/dev/null || {
		echo "install-deps: missing packages: ${missing[*]} (run as root to install them)" >&2
		exit 1
	}
else
	sudo=
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q >&2
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
