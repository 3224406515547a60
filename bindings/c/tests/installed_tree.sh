#!/usr/bin/env bash
# `make install` into a temporary prefix, then build bindings/c/examples/scan.c
# against the installed tree twice, with pkg-config and with CMake's
# find_package(floe), and run both on a fixture table. Checks the files a
# package holds and the SONAME chain: the library names itself
# libfloe.so.MAJOR, and programs linked with -lfloe need that name.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
fail() { echo "installed tree: $*" >&2; exit 1; }

version=$(sed -n 's/^#define FLOE_VERSION_STRING "\(.*\)"/\1/p' "$root/include/floe.h")
major=${version%%.*}
minor=$(echo "$version" | cut -d. -f2)
make -C "$root" --no-print-directory install PREFIX="$prefix" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "make install failed"; }

lib=$prefix/lib/libfloe.so.$major.$minor
for f in "$lib" "$prefix/include/floe.h" "$prefix/lib/pkgconfig/floe.pc" \
         "$prefix/lib/cmake/floe/floeConfig.cmake" "$prefix/lib/cmake/floe/floeConfigVersion.cmake"; do
  [ -f "$f" ] || fail "missing $f"
done
[ "$(readlink "$prefix/lib/libfloe.so.$major")" = "libfloe.so.$major.$minor" ] || fail "libfloe.so.$major does not link to libfloe.so.$major.$minor"
[ "$(readlink "$prefix/lib/libfloe.so")" = "libfloe.so.$major" ] || fail "libfloe.so does not link to libfloe.so.$major"
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libfloe.so.$major" ] || fail "SONAME is '$soname', want libfloe.so.$major"

fixture=$root/testdata/fixtures/duckdb_lineitem_iceberg
args=("$fixture" "lineitem_iceberg=$fixture")
check_run() { # name, output
  case "$2" in
    "51793 rows"*) echo "installed tree: $1 build read 51793 rows" ;;
    *) fail "$1 build printed: $2" ;;
  esac
}

# pkg-config
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
[ "$(pkg-config --modversion floe)" = "$version" ] || fail "pkg-config says version $(pkg-config --modversion floe), floe.h $version"
# shellcheck disable=SC2046
cc -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror $(pkg-config --cflags floe) \
  "$root/bindings/c/examples/scan.c" -o "$tmp/scan-pkgconfig" $(pkg-config --libs floe)
readelf -d "$tmp/scan-pkgconfig" | grep -q "(NEEDED).*\[libfloe.so.$major\]" || fail "the pkg-config build does not need libfloe.so.$major"
check_run pkg-config "$(LD_LIBRARY_PATH=$prefix/lib "$tmp/scan-pkgconfig" "${args[@]}")"

# CMake: find_package(floe MAJOR.MINOR) and floe::floe; the build RPATH
# finds the library, no LD_LIBRARY_PATH.
cmake -S "$root/bindings/c/tests/install_consumer" -B "$tmp/cmake" -DFLOE_REQUIRED_VERSION="$major.$minor" \
  -DCMAKE_PREFIX_PATH="$prefix" -DFLOE_EXAMPLE="$root/bindings/c/examples/scan.c" >"$tmp/cmake.log" 2>&1 \
  || { cat "$tmp/cmake.log"; fail "cmake configure failed"; }
cmake --build "$tmp/cmake" >>"$tmp/cmake.log" 2>&1 || { cat "$tmp/cmake.log"; fail "cmake build failed"; }
check_run CMake "$(env -u LD_LIBRARY_PATH "$tmp/cmake/scan" "${args[@]}")"

# A version the tree cannot satisfy is refused.
if cmake -S "$root/bindings/c/tests/install_consumer" -B "$tmp/badver" -DFLOE_REQUIRED_VERSION="$((major + 1)).0" \
  -DCMAKE_PREFIX_PATH="$prefix" -DFLOE_EXAMPLE="$root/bindings/c/examples/scan.c" >"$tmp/badver.log" 2>&1; then
  fail "find_package(floe $((major + 1)).0) accepted version $version"
fi
grep -q "that is compatible" "$tmp/badver.log" || fail "find_package(floe $((major + 1)).0) failed for another reason: $(cat "$tmp/badver.log")"
echo "installed tree: ok ($version)"
