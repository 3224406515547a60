"""Compaction split across processes (floe_rewrite_plan, floe_rewrite_group,
floe_rewrite_commit, floe_rewrite_discard): the client plans, each worker
rewrites one file group, the client commits the workers' results in one
"replace" snapshot. floe.dask.rewrite_data_files runs these on a Dask
cluster; any other engine can call them the same way."""

import ctypes
import json

from ._calls import _check, _json_arg, _take_bytes, _take_string
from ._lib import library


def plan_rewrite(table, options):
    """The compaction plan of the version table holds, as a dict
    {"starting_snapshot_id", "options", "groups": [group, ...]}; options are
    rewrite_data_files' (snake case, None values left out)."""
    out = ctypes.c_void_p()
    _check(library().floe_rewrite_plan(table._handle, _json_arg({k: v for k, v in options.items() if v is not None}),
                                       ctypes.byref(out)))
    return json.loads(_take_string(out))


def rewrite_group(table, group, timeout_ms=None):
    """Rewrites one group of a plan (a dict of its "groups", or its JSON
    bytes) on table, a handle of the metadata file the plan was made from;
    returns the group's result as bytes for commit_rewrite or
    discard_rewrite. Nothing is committed."""
    data = group if isinstance(group, (bytes, bytearray)) else json.dumps(group).encode("utf-8")
    data = bytes(data)
    opts = {"timeout_ms": timeout_ms} if timeout_ms is not None else {}
    ptr, size = ctypes.c_void_p(), ctypes.c_size_t()
    _check(library().floe_rewrite_group(table._handle, data, len(data), _json_arg(opts), ctypes.byref(ptr),
                                        ctypes.byref(size)))
    return _take_bytes(ptr, size)


def _results_array(results):
    results = [bytes(r) for r in results]
    return b"[" + b",".join(results) + b"]"


def commit_rewrite(table, results, token=None, branch=None, discard_refused=False, partial_progress=False,
                   timeout_ms=None):
    """Commits rewrite_group results of one plan in one snapshot; returns
    {"snapshot_id", "token_found", "rewritten_data_files_count",
    "added_data_files_count", "removed_delete_files"}. FloeError (CONFLICT)
    when another writer removed or deleted rows of a rewritten file; with
    discard_refused the results' files are deleted when the commit does not
    take them. partial_progress: this is one of several commits of a run's
    groups, taking the run's token with a hash of the files it replaces."""
    data = _results_array(results)
    opts = {"token": token, "branch": branch, "discard_refused": bool(discard_refused) or None,
            "partial_progress": bool(partial_progress) or None, "timeout_ms": timeout_ms}
    out = ctypes.c_void_p()
    try:
        _check(library().floe_rewrite_commit(table._handle, data, len(data),
                                             _json_arg({k: v for k, v in opts.items() if v is not None}),
                                             ctypes.byref(out)))
    finally:
        table._metadata = None
    return json.loads(_take_string(out))


def discard_rewrite(table, results):
    """Deletes the files of rewrite_group results no commit took."""
    data = _results_array(results)
    _check(library().floe_rewrite_discard(table._handle, data, len(data)))
