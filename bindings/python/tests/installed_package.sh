#!/usr/bin/env bash
# Runs README.md's Python install command exactly as the README gives it,
# from the repository root, as a new user on Debian would: HOME a fresh
# directory, Debian's python3 first on PATH, and no network (a network
# namespace of its own when unshare can make one). Then, from outside the
# repository and without FLOE_LIBRARY, imports floe and reads a fixture
# table: the package must find the libfloe.so it ships.
#
# The command needs Debian's python3-venv, python3-setuptools and
# python3-wheel (.ci/run installs them): --system-site-packages is what
# lets pip's offline build (--no-build-isolation) find the system's wheel
# package for bdist_wheel; a plain venv has setuptools but no wheel and
# fails with "invalid command 'bdist_wheel'".
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)

readme_command='python3 -m venv --system-site-packages ~/.venvs/floe && ~/.venvs/floe/bin/pip install --no-build-isolation bindings/python'
if ! grep -qF -- "$readme_command" "$root/README.md"; then
  echo "README.md does not give the Python install command this test runs:" >&2
  echo "  $readme_command" >&2
  exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/home"
# pip builds in the source tree: what an earlier build left there must not
# stand in for this one.
rm -rf "$root/bindings/python/build" "$root/bindings/python/floe.egg-info"
# Go's module and build caches stay where they are (the build is offline
# and must not download); nothing else of this environment leaks in: no
# FLOE_PREBUILT_LIBRARY (setup.py builds libfloe.so with go), no pip
# settings (PIP_FIND_LINKS and the like).
go=$(command -v go || echo /usr/local/go/bin/go)
offline=()
if unshare -n true 2>/dev/null; then
  offline=(unshare -n)
fi
(cd "$root" && "${offline[@]}" env -i HOME="$tmp/home" PATH="/usr/bin:/bin:$(dirname "$go")" \
  GOMODCACHE="$("$go" env GOMODCACHE)" GOCACHE="$("$go" env GOCACHE)" GOPROXY=off GOFLAGS="$("$go" env GOFLAGS)" \
  bash -c "$readme_command") >"$tmp/pip.log" 2>&1 || { cat "$tmp/pip.log"; exit 1; }
rm -rf "$root/bindings/python/build" "$root/bindings/python/floe.egg-info"

cd "$tmp"
env -u FLOE_LIBRARY FIXTURE="$root/testdata/fixtures/duckdb_lineitem_iceberg" "$tmp/home/.venvs/floe/bin/python" - <<'PY'
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

# pyiceberg's getting-started flow (tests/pyiceberg_flow.py: a pyiceberg
# script with only the imports changed) on the installed package, outside
# the repository, its catalog configured as pyiceberg's users configure
# one: a .pyiceberg.yaml in the home directory, then PYICEBERG_CATALOG__
# variables. pandas is Debian's (the venv sees the system's packages).
cp "$root/bindings/python/tests/pyiceberg_flow.py" "$tmp/pyiceberg_flow.py"
mkdir -p "$tmp/yaml/home" "$tmp/env/home"
cat >"$tmp/yaml/home/.pyiceberg.yaml" <<YAML
catalog:
  default:
    type: sql
    uri: sqlite:///$tmp/yaml/pyiceberg_catalog.db
    warehouse: file://$tmp/yaml/warehouse
YAML
(cd "$tmp/yaml" && env -i HOME="$tmp/yaml/home" PATH=/usr/bin:/bin "$tmp/home/.venvs/floe/bin/python" "$tmp/pyiceberg_flow.py")
(cd "$tmp/env" && env -i HOME="$tmp/env/home" PATH=/usr/bin:/bin PYICEBERG_CATALOG__DEFAULT__TYPE=sql \
  PYICEBERG_CATALOG__DEFAULT__URI="sqlite:///$tmp/env/pyiceberg_catalog.db" \
  PYICEBERG_CATALOG__DEFAULT__WAREHOUSE="file://$tmp/env/warehouse" \
  "$tmp/home/.venvs/floe/bin/python" "$tmp/pyiceberg_flow.py")
