"""What the object-store tests (test_s3, test_gcs, test_azure) share: the
small table they write, a free loopback port, a row order that tolerates
nulls, and finding a server binary the way internal/*test finds it."""

import os
import shutil
import socket
import subprocess

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
