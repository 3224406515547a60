#!/usr/bin/env bash
# pip install bindings/python into a new virtual environment (offline:
# --no-build-isolation, setuptools from the system), then, from outside the
# repository and without FLOE_LIBRARY, import floe and read a fixture
# table: the package must find the libfloe.so it ships.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Debian's python3 with python3-venv, -setuptools and -wheel (.ci/run
# installs them): building a wheel offline takes setuptools and wheel from
# the system, and pyenv's Python here has no wheel package.
python=${FLOE_PACKAGE_PYTHON:-/usr/bin/python3}
[ -x "$python" ] || python=python3
"$python" -m venv --system-site-packages "$tmp/venv"
# The user's path: setup.py builds libfloe.so with go (no
# FLOE_PREBUILT_LIBRARY). pip builds in the source tree: what an earlier
# build left there must not stand in for this one.
rm -rf "$root/bindings/python/build" "$root/bindings/python/floe.egg-info"
env -u FLOE_PREBUILT_LIBRARY "$tmp/venv/bin/python" -m pip install -q --no-build-isolation --no-deps --no-index \
  "$root/bindings/python" >"$tmp/pip.log" 2>&1 || { cat "$tmp/pip.log"; exit 1; }
cd "$tmp"
env -u FLOE_LIBRARY FIXTURE="$root/testdata/fixtures/duckdb_lineitem_iceberg" "$tmp/venv/bin/python" - <<'PY'
import os
import floe
from floe import _lib

here = os.path.dirname(floe.__file__)
assert "site-packages" in here, f"floe imported from {here}, not the installed package"
assert os.path.exists(os.path.join(here, "libfloe.so")), "the package has no libfloe.so"
assert os.path.exists(os.path.join(here, "py.typed")), "the package has no py.typed"
assert floe.__version__ == floe.version(), (floe.__version__, floe.version())
fx = os.environ["FIXTURE"]
t = floe.Table.open(fx, location_map={"lineitem_iceberg": fx})
rows = len(t.scan(selected_fields=["l_orderkey"]).to_pylist())
assert rows == 51793, rows
print(f"installed package: floe {floe.__version__} from {here} read {rows} rows")
PY
