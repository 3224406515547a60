"""What the object-store tests (test_s3, test_gcs, test_azure) share: the
small table they write and the write scenario each runs on it, a free
loopback port, a row order that tolerates nulls, and finding a server
binary the way internal/*test finds it."""

import os
import shutil
import socket
import subprocess

import floe

SCHEMA = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "i", "required": False, "type": "int"},
    {"id": 2, "name": "j", "required": False, "type": "int"},
]}
ROWS = [{"i": 1, "j": -1}, {"i": 2, "j": -1}, {"i": 3, "j": 5}, {"i": 4, "j": 10}, {"i": 5, "j": None}]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sort_key(row):
    """Rows sorted by their values, nulls last: numbers and text as they
    are, other values (dicts, lists, decimals beside None) by repr."""
    return tuple((v is None, v if isinstance(v, (int, float, str)) else repr(v)) for v in row.values())


def find_server(name, env, cached=None, gopath=False, extra=()):
    """The server's executable: $env when set (None if it is not an
    executable file), else name on PATH, else cached (a path under
    ~/.cache/floe, or $XDG_CACHE_HOME/floe), else $(go env GOPATH)/bin/name
    when gopath, else any of extra; None when there is none."""
    explicit = os.environ.get(env)
    if explicit:
        return explicit if os.path.isfile(explicit) and os.access(explicit, os.X_OK) else None
    found = shutil.which(name)
    if found:
        return found
    candidates = []
    if cached:
        cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        candidates.append(os.path.join(cache, "floe", cached))
    if gopath:
        try:
            out = subprocess.run(["go", "env", "GOPATH"], capture_output=True, text=True, timeout=30).stdout.strip()
            candidates += [os.path.join(d, "bin", name) for d in out.split(os.pathsep) if d]
        except (OSError, subprocess.SubprocessError):
            pass
    candidates += list(extra)
    for c in candidates:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def append_replace_and_retry(test, location, reopen_at=None, **store):
    """The write scenario every store's test runs: a table partitioned by j
    created at location (store: its settings, as Table.create takes them),
    ROWS appended with token step-1 and partition j=5 replaced with step-2;
    then, through a fresh handle at reopen_at (another spelling of the same
    location; default location), the rows are checked and the retried
    append commits nothing. Returns the first handle, still open, and the
    rows the table holds sorted by sort_key."""
    t = floe.Table.create(location, SCHEMA, partition_by=["j"], **store)
    first = t.append(ROWS, token="step-1")
    t.replace_partitions([{"i": 30, "j": 5}], token="step-2")
    want = sorted([ROWS[0], ROWS[1], ROWS[3], ROWS[4], {"i": 30, "j": 5}], key=sort_key)
    with floe.Table.open(reopen_at or location, **store) as again:
        test.assertEqual(sorted(again.scan().to_pylist(), key=sort_key), want)
        # A retried step, through a fresh handle, commits nothing.
        test.assertEqual(again.append(ROWS, token="step-1"), first)
        test.assertEqual(len(again.metadata["snapshots"]), 2)
        test.assertEqual(sorted(again.scan().to_pylist(), key=sort_key), want)
    return t, want
