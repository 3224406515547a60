"""Table maintenance (floe_table_maintain): ``t.maintenance.remove_orphan_files()``,
``rewrite_manifests()``, ``remove_dangling_deletes()``, ``compute_statistics()``,
``rewrite_data_files()``, ``rewrite_position_deletes()``,
``convert_equality_deletes()``, and the planner's ``health()``, ``plan()``
and ``maintain()``, each returning the action's result as a dict. Keyword
names are the C API's options (Java's option names in snake case)."""

import ctypes
import dataclasses
import datetime
import json
import time

from . import _progress
from ._calls import _c_str, _check, _json_arg, _take_string
from ._lib import PROGRESS_FN, library
from ._table import _epoch_ms
from .expressions import _filter


def _older_than_ms(older_than):
    """remove_orphan_files' older_than as ms since the epoch: an age (a
    timedelta, files modified longer ago than it) or a time (a datetime,
    naive is UTC, or ms since the epoch)."""
    if older_than is None:
        return None
    if isinstance(older_than, datetime.timedelta):
        if older_than < datetime.timedelta(0):
            raise ValueError(f"older_than {older_than} is negative")
        return int(time.time() * 1000) - older_than // datetime.timedelta(milliseconds=1)
    if isinstance(older_than, bool) or not isinstance(older_than, (int, datetime.datetime)):
        raise TypeError("older_than takes a timedelta, a datetime or milliseconds since the epoch")
    return _epoch_ms(older_than)


class MaintenanceTable:
    """The maintenance actions of one Table (``t.maintenance``). Each call
    commits (unless it changes nothing or dry_run is set) and returns a
    dict; progress, when given, is called with a floe.Progress as the
    action goes (steps, or file groups for rewrite_data_files, done of the
    total, and the groups' input bytes; ``p["action"]``, ``p["done"]``,
    ``p["total"]``, ``p["group"]`` read the C API's progress JSON), once at
    the end for the actions without steps; progress=True draws it on
    stderr when it is a terminal. FloeError
    (INVALID_ARGUMENT) names a bad option, (CONFLICT) says another writer
    removed what a commit replaces."""

    def __init__(self, table):
        self._table = table

    def _run(self, action, opts, progress=None):
        callback = PROGRESS_FN()  # NULL: no callback
        reporter = _progress.reporter(progress)
        if reporter is not None:
            input_bytes = [0]

            def call(progress_json, _user_data):
                detail = json.loads(progress_json.decode("utf-8"))
                input_bytes[0] += (detail.get("group") or {}).get("input_bytes", 0)
                reporter(dataclasses.replace(_progress.maintenance_progress(action, detail), bytes=input_bytes[0]))

            callback = PROGRESS_FN(call)
        out = ctypes.c_void_p()
        try:
            _check(library().floe_table_maintain(self._table._handle, _c_str(action, "action"),
                                                 _json_arg({k: v for k, v in opts.items() if v is not None}),
                                                 callback, None, ctypes.byref(out)))
        finally:
            self._table._metadata = None
            if reporter is not None:
                reporter.finish()
        return json.loads(_take_string(out))

    def remove_orphan_files(self, older_than=None, dry_run=False, location=None, force=False, timeout_ms=None,
                            progress=None):
        """Deletes the files under the table's location that the table
        does not reference and that were last modified before older_than
        (a timedelta age, default 3 days; a datetime or ms since the epoch
        as a time); under an hour needs force=True (a write may be in
        flight). location limits it to a directory of the table; dry_run
        deletes nothing. Returns {"dry_run", "orphan_files": [paths],
        "deleted_files_count", "failed_deletes_count", "listed_files_count",
        "referenced_files_count", "too_new_files_count"}."""
        return self._run("remove_orphan_files", {
            "older_than_ms": _older_than_ms(older_than), "dry_run": bool(dry_run) or None, "location": location,
            "force": bool(force) or None, "timeout_ms": timeout_ms}, progress)

    def rewrite_manifests(self, target_size_bytes=None, token=None, properties=None, branch=None, timeout_ms=None,
                          progress=None):
        """Regroups the manifests by partition into manifests near
        target_size_bytes (default commit.manifest.target-size-bytes) in
        one "replace" snapshot. Returns {"snapshot_id", "committed",
        "token_found", "rewritten_manifests_count", "added_manifests_count",
        "kept_manifests_count", "processed_entries_count"}."""
        return self._run("rewrite_manifests", {
            "target_size_bytes": target_size_bytes, "token": token, "properties": properties, "branch": branch,
            "timeout_ms": timeout_ms}, progress)

    def remove_dangling_deletes(self, token=None, properties=None, branch=None, timeout_ms=None, progress=None):
        """Removes the delete files (and deletion vectors) that apply to no
        live data file, in one "replace" snapshot. Returns {"snapshot_id",
        "committed", "token_found", "removed_delete_files": [paths]}."""
        return self._run("remove_dangling_deletes", {
            "token": token, "properties": properties, "branch": branch, "timeout_ms": timeout_ms}, progress)

    def compute_statistics(self, columns=None, snapshot_id=None, ndv=None, partition_statistics=None,
                           timeout_ms=None, progress=None):
        """Computes each column's number of distinct values (theta
        sketches; columns default to every top-level primitive column) of
        the snapshot (default current), writes them as a Puffin file and
        registers it; on a partitioned table also writes and registers the
        snapshot's partition statistics file (per spec and partition: data,
        position delete, deletion vector and equality delete counts, read
        from the manifests alone). ndv=False skips the sketches;
        partition_statistics=False skips the partition file, True requires
        it (an unpartitioned table is then refused). Returns
        {"snapshot_id", "statistics_path", "file_size_in_bytes",
        "ndv": {column: n}, "partition_statistics": {"statistics_path",
        "file_size_in_bytes", "partitions"}} (keys of what was skipped
        left out)."""
        if isinstance(columns, str):
            raise TypeError("columns takes a list of column names")
        return self._run("compute_statistics", {
            "columns": list(columns) if columns is not None else None, "snapshot_id": snapshot_id,
            "ndv": ndv, "partition_statistics": partition_statistics, "timeout_ms": timeout_ms}, progress)

    def rewrite_data_files(self, row_filter=None, target_file_size_bytes=None, min_file_size_bytes=None,
                           max_file_size_bytes=None, min_input_files=None, delete_file_threshold=None,
                           delete_ratio_threshold=None, rewrite_all=False, max_file_group_size_bytes=None,
                           partial_progress_enabled=False, partial_progress_max_commits=None,
                           max_concurrent_file_group_rewrites=None, token=None, branch=None, timeout_ms=None,
                           progress=None, output_spec_id=None, strategy=None, sort_order_id=None,
                           zorder_columns=None):
        """Compacts small files (bin-pack, Java's options and defaults),
        applying every delete, and drops delete files nothing needs any
        more; row_filter (text or REST JSON dict) limits it to files that
        may hold the rows it selects. strategy: "binpack" (default, rows
        in the order read), "sort" (each group sorted by the table's sort
        order, or sort_order_id's), "zorder" or "hilbert" (each group
        ordered along that curve over zorder_columns, a list of column
        names). The new files are partitioned by the table's default spec,
        or output_spec_id's (files of older specs are rewritten into it,
        as Java's output-spec-id does). Returns {"starting_snapshot_id",
        "groups": [...], "rewritten_data_files_count",
        "added_data_files_count", "rewritten_bytes_count",
        "removed_delete_files_count", "failed_data_files_count",
        "snapshot_ids": [ids]}; progress is called per file group."""
        if isinstance(zorder_columns, str):
            raise TypeError("zorder_columns takes a list of column names")
        return self._run("rewrite_data_files", {
            "filter": None if row_filter is None else _filter(row_filter), "target_file_size_bytes": target_file_size_bytes,
            "min_file_size_bytes": min_file_size_bytes, "max_file_size_bytes": max_file_size_bytes,
            "min_input_files": min_input_files, "delete_file_threshold": delete_file_threshold,
            "delete_ratio_threshold": delete_ratio_threshold, "rewrite_all": bool(rewrite_all) or None,
            "max_file_group_size_bytes": max_file_group_size_bytes,
            "partial_progress_enabled": bool(partial_progress_enabled) or None,
            "partial_progress_max_commits": partial_progress_max_commits,
            "max_concurrent_file_group_rewrites": max_concurrent_file_group_rewrites, "token": token,
            "branch": branch, "timeout_ms": timeout_ms, "output_spec_id": output_spec_id, "strategy": strategy,
            "sort_order_id": sort_order_id,
            "zorder_columns": list(zorder_columns) if zorder_columns is not None else None}, progress)

    def rewrite_position_deletes(self, target_file_size_bytes=None, token=None, properties=None, branch=None,
                                 timeout_ms=None, progress=None):
        """Merges a partition's position delete files (dropping positions
        of removed data files) into files near the target size; on v3,
        turns them into one deletion vector per data file. One "replace"
        snapshot; the rows stay."""
        return self._run("rewrite_position_deletes", {
            "target_file_size_bytes": target_file_size_bytes, "token": token, "properties": properties,
            "branch": branch, "timeout_ms": timeout_ms}, progress)

    def convert_equality_deletes(self, token=None, properties=None, branch=None, timeout_ms=None, progress=None):
        """Turns every equality delete into position deletes (v2) or
        deletion vectors (v3) of the rows it removes, so reads stop joining
        on keys. One "replace" snapshot; the rows stay."""
        return self._run("convert_equality_deletes", {
            "token": token, "properties": properties, "branch": branch, "timeout_ms": timeout_ms}, progress)

    def health(self, skip_orphans=False, timeout_ms=None):
        """What the table needs, changing nothing (floe inspect TABLE
        health): a dict of small files (and the worst partitions), delete
        files by kind, dangling deletes, the compaction's planned groups,
        manifests that can merge, snapshots past retention, orphan files
        (unless skip_orphans: listing the location), and whether the
        statistics are current: "statistics_current",
        "partition_statistics_current" and "stale_statistics" (["ndv",
        "partition_statistics"]: what the current snapshot lacks on a
        table that keeps statistics, one with a statistics file or
        write.statistics.on-commit=true; maintain() computes them)."""
        return self._run("health", {"skip_orphans": bool(skip_orphans) or None, "timeout_ms": timeout_ms})

    def plan(self, skip_orphans=False, timeout_ms=None, min_equality_delete_files=None,
             min_position_delete_files=None):
        """The maintenance planner's dry run: {"dry_run": True, "health":
        {...}, "actions": [{"action", "reason"}, ...]} in the order
        maintain() would run them, changing nothing. The thresholds are
        maintain()'s."""
        return self._run("maintain", {"dry_run": True, "skip_orphans": bool(skip_orphans) or None,
                                      "timeout_ms": timeout_ms,
                                      "min_equality_delete_files": min_equality_delete_files,
                                      "min_position_delete_files": min_position_delete_files})

    def maintain(self, skip_orphans=False, timeout_ms=None, progress=None, min_equality_delete_files=None,
                 min_position_delete_files=None):
        """Runs what the table needs in a safe order (compaction, equality
        deletes converted, position deletes merged, dangling deletes,
        manifests, snapshot expiry, orphan files, statistics), each judged
        on the table the earlier left; returns the plan's report with each
        action's "result". min_equality_delete_files: equality deletes are
        converted when at least this many apply to live data (default 1);
        min_position_delete_files: position delete files are merged when
        at least this many can be (default 5 on v2; on v3 any is turned
        into deletion vectors); a negative threshold never runs that
        action."""
        return self._run("maintain", {"skip_orphans": bool(skip_orphans) or None, "timeout_ms": timeout_ms,
                                      "min_equality_delete_files": min_equality_delete_files,
                                      "min_position_delete_files": min_position_delete_files}, progress)

    def __repr__(self):
        return f"<floe.MaintenanceTable of {self._table!r}>"
