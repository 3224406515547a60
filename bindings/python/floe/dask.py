"""Dask for tables larger than one machine: read_table plans a scan on the
client and returns a dask.dataframe with one partition per planned task
(tasks pickle to the workers, which read them with floe, filter and
projection included); write_table has each worker write its partitions'
data files and the client commit them all in one snapshot, with a token so
a resubmitted job commits once; rewrite_data_files compacts a table the
same way (the client plans the file groups, each worker rewrites one, the
client commits them in one "replace" snapshot).

Both take the table as a Table (opened by path or loaded from a catalog), a
catalog and an identifier (``write_table(ddf, cat, identifier="db.t")``
or the pair ``(cat, "db.t")``), or a path. The commit goes through
whatever owns the table: the Table handle the client holds, so a catalog's
table is committed through its catalog and the catalog's history keeps
the rows. Workers only write data files: they open the metadata file the
client's table was read from (with open_options, e.g. ``s3``), never
commit.

The same code runs on a multi-machine cluster when every worker reaches the
table's storage (S3, or a shared file system) and has floe installed. Dask's
worker processes must not be forked from a process that loaded libfloe (the
Go runtime does not survive fork): distributed's default start method for
worker processes, spawn, is safe; do not set
``distributed.worker.multiprocessing-method`` to fork.
"""

import json

from . import _rewrite_distributed as _rewrite
from ._catalog import Catalog
from ._errors import FloeError
from ._table import Table
from .expressions import _filter

_TOKEN_KEY = "floe.commit-token"  # iceberg/table.SummaryToken
_EXPIRED_TOKENS_KEY = "floe.expired-tokens"  # iceberg/table.PropExpiredTokens


def _dtype(iceberg_type):
    """The pandas dtype of an Iceberg type's column: nullable integers and
    booleans, float, string, datetime64 (UTC for timestamptz); object for
    the rest (dates, decimals, nested values come as Python objects)."""
    if isinstance(iceberg_type, str):
        if iceberg_type in ("timestamp", "timestamp_ns"):
            return "datetime64[ns]"
        if iceberg_type in ("timestamptz", "timestamptz_ns"):
            return "datetime64[ns, UTC]"
        if iceberg_type in ("int", "long"):
            return "Int64"
        if iceberg_type == "boolean":
            return "boolean"
        if iceberg_type in ("float", "double"):
            return "float64"
        if iceberg_type == "string":
            return "string"
    return "object"


def _meta(table, columns):
    import pandas as pd

    schema = table.schema()
    if columns:
        fields = [schema.find_field(c) for c in columns]
        names = list(columns)
    else:
        fields = schema.fields
        names = [f.name for f in fields]
    return pd.DataFrame({n: pd.Series([], dtype=_dtype(f.field_type)) for n, f in zip(names, fields)})


def _read_task(task, meta):
    """One partition: a task read on the worker (Task.to_pandas: numeric
    columns straight from floe's buffers), with the meta's dtypes."""
    df = task.to_pandas()
    if len(df) == 0:
        return meta.iloc[0:0].copy()
    return df.astype(meta.dtypes.to_dict())


def _table(table, identifier, open_options):
    """(Table, whether this call opened it) of write_table's and
    read_table's table argument."""
    if isinstance(table, tuple) and len(table) == 2 and isinstance(table[0], Catalog):
        if identifier is not None:
            raise TypeError("give the identifier once: (catalog, identifier) or identifier=")
        table, identifier = table
    if isinstance(table, Catalog):
        if identifier is None:
            raise TypeError("a catalog needs identifier= naming the table")
        return table.load_table(identifier), True
    if identifier is not None:
        raise TypeError("identifier= names a table of a catalog; pass the catalog as the table argument")
    if isinstance(table, Table):
        return table, False
    return Table.open(str(table), **open_options), True


def read_table(table, columns=None, row_filter=None, snapshot_id=None, split_size=None,
               location_map=None, identifier=None, **open_options):
    """A dask.dataframe of the table's rows: one partition per planned task
    (``split_size`` bytes of data each, the table's read.split.target-size
    by default). columns and row_filter are applied by floe on the workers;
    snapshot_id pins the snapshot. table is a Table, a Catalog with
    identifier (or a (catalog, identifier) pair), or a location, which
    opens the table (with location_map and open_options as Table.open takes
    them)."""
    import dask.dataframe as dd

    if location_map:
        open_options = dict(open_options, location_map=location_map)
    table, own = _table(table, identifier, open_options)
    try:
        meta = _meta(table, columns)
        scan = table.scan(row_filter=row_filter, selected_fields=columns, snapshot_id=snapshot_id,
                          split_size=split_size)
        try:
            tasks = scan.plan_tasks()
        finally:
            scan.close()
    finally:
        if own:
            table.close()
    if not tasks:
        return dd.from_pandas(meta, npartitions=1)
    return dd.from_map(_read_task, tasks, meta=meta, args=(meta,), enforce_metadata=False)


def _write_partition(df, metadata_location, open_options):
    """On a worker: the partition's rows as data files of the table, not
    committed; their entries come back to the client. The worker opens
    the metadata file the client holds (a catalog's table too: it only
    writes files, the client commits through the catalog), and the frame
    goes to floe column by column (floe._pandas_input)."""
    if len(df) == 0:
        return b""
    try:
        with Table.open(metadata_location, **open_options) as t:
            return t.write_files(df)
    except Exception as e:
        # Handed back rather than raised: a raised error would make the
        # client lose the files the other partitions' workers wrote, which
        # it deletes before raising this (write_files left none of its own).
        return _Failed(e)


class _Failed:
    """A partition whose rows could not be written, and why."""

    def __init__(self, error):
        self.error = error


def _merge_files(blobs):
    files, version = [], None
    for b in blobs:
        if not b:
            continue
        doc = json.loads(b)
        if version is not None and doc["version"] != version:
            raise ValueError(f"data files encoded by versions {version} and {doc['version']}")
        version = doc["version"]
        files.extend(doc["files"])
    if version is None:
        return None
    return json.dumps({"version": version, "files": files}).encode("utf-8")


def _token_snapshot(table, token):
    """The snapshot that committed token, before any file is written. The
    commit itself decides (floe finds the token again, also among the
    tokens of expired snapshots it keeps in floe.expired-tokens); this only
    spares a resubmitted job writing files it will not commit."""
    for s in table.snapshots():
        if s.summary.get(_TOKEN_KEY) == token:
            return s.snapshot_id
    try:
        kept = json.loads(table.properties.get(_EXPIRED_TOKENS_KEY) or "[]")
    except ValueError:
        return None  # the commit reports a damaged property
    for entry in kept if isinstance(kept, list) else []:
        if isinstance(entry, dict) and entry.get("token") == token:
            return entry.get("snapshot-id")
    return None


def write_table(ddf, table, token=None, mode="append", properties=None, run_id=None, identifier=None,
                **open_options):
    """Writes the dask.dataframe's rows to the table in one snapshot and
    returns its id. table is a Table (opened by path or loaded from a
    catalog), a Catalog with identifier (or a (catalog, identifier)
    pair), or a path table's location. Each worker writes its partitions'
    data files; the client commits them all through the table's owner
    (its catalog, or the path for a path table):

    - mode="append" adds them;
    - mode="replace_partitions" also drops the files other writers left
      in the partitions the rows land in (an unpartitioned table is one
      partition). It raises FloeError (CONFLICT), committing nothing, when
      another writer changed one of those partitions after the job opened
      the table; run_id as for Table.replace_partitions.

    With token, a job whose token the table already holds writes and
    commits nothing and returns that snapshot: a retried job commits once.
    The files the workers wrote are deleted again when the commit does not
    take them (append_files' discard_refused): it raised (except
    COMMIT_STATE_UNKNOWN, when the table may hold them), or found the token
    committed by another run of the job meanwhile. When a partition's rows
    cannot be written (they do not fit the table), its error is raised
    after the other partitions' files are deleted, and nothing is
    committed. open_options (location_map, s3, ...) open a path
    table and, on the workers, the metadata file they write against; a
    Table's own open options are used when none are given."""
    if mode not in ("append", "replace_partitions"):
        raise ValueError(f"write_table mode {mode!r}: use 'append' or 'replace_partitions'")
    import dask

    t, own = _table(table, identifier, open_options)
    try:
        if not own and t._reload is not None:
            t.refresh()  # a token another process committed since the handle was read
        if token is not None:
            found = _token_snapshot(t, token)
            if found is not None:
                return found
        worker_options = open_options or _worker_options(t._options)
        where = t.metadata_location
        writes = [dask.delayed(_write_partition)(part, where, worker_options) for part in ddf.to_delayed()]
        results = dask.compute(*writes)
        failed = [r.error for r in results if isinstance(r, _Failed)]
        files = _merge_files(r for r in results if not isinstance(r, _Failed))
        if failed:
            if files is not None:
                _discard(t, files, failed[0])
            raise failed[0]
        # The workers' files are this job's: the commit deletes them when
        # it does not take them (refused, or its token found), as only it
        # knows which happened.
        return _commit(t, mode, files, token, properties, run_id)
    finally:
        if own:
            t.close()


def _commit(t, mode, files, token, properties, run_id):
    """One commit of the workers' files (None: no rows). It refreshes the
    table and retries on its own when other writers committed meanwhile
    (and finds the token if one did); a replace checks its partitions
    against the version write_table opened."""
    if mode == "replace_partitions":
        if files is None:
            return t.replace_partitions([], token=token, properties=properties, run_id=run_id)
        return t.replace_partitions_files(files, token=token, properties=properties, run_id=run_id,
                                          discard_refused=True)
    if files is None:
        return t.append([], token=token, properties=properties)
    return t.append_files(files, token=token, properties=properties, discard_refused=True)


def _discard(t, files, cause):
    """Deletes the files the other partitions' workers wrote for a job that
    will not commit. A failed discard does not hide the job's own error
    (cause): it becomes a note on it."""
    try:
        t.discard_files(files)
    except FloeError as e:
        note = getattr(cause, "add_note", None)
        if note is not None:
            note(f"the files the job's workers wrote were not deleted: {e}")


def _worker_options(table_options):
    """What a worker opening the metadata file needs of the options the
    client's table was opened with (not its warehouse: the worker opens a
    file, not a name)."""
    return {k: v for k, v in table_options.items() if k in ("location_map", "s3", "gcs", "azure", "properties", "relocate")}


def _rewrite_group(group, metadata_location, open_options):
    """On a worker: one file group of a compaction plan rewritten as new
    data files, not committed; the group's result (bytes) comes back to the
    client. The worker opens the metadata file the plan was made from, as
    write_table's workers do."""
    try:
        with Table.open(metadata_location, **open_options) as t:
            return _rewrite.rewrite_group(t, group)
    except Exception as e:
        # Handed back, not raised, as in _write_partition: the client
        # deletes the other groups' files before raising it (the failed
        # group deleted its own).
        return _Failed(e)


def rewrite_data_files(table, client=None, identifier=None, token=None, branch=None, row_filter=None,
                       partial_progress_enabled=False, partial_progress_max_commits=None, open_options=None,
                       **options):
    """Compacts the table's small files on a Dask cluster: the client plans
    the file groups as t.maintenance.rewrite_data_files would (options are
    its keywords: target_file_size_bytes, min_input_files, rewrite_all,
    delete_file_threshold, ...; row_filter limits it to the files that may
    hold rows it selects), each group is rewritten on a worker (every
    delete applied), and the client commits the groups through the table's
    owner, as write_table commits. table is what write_table takes; client
    is a distributed.Client (the current Dask scheduler when None);
    open_options (location_map, s3, ...) open a path table and, on the
    workers, the plan's metadata file.

    Without partial progress every group is one "replace" snapshot, or
    none: a group that fails, or a commit that raises FloeError (CONFLICT:
    another writer removed a rewritten file or deleted rows of one
    meanwhile), leaves the table as it was and the workers' files deleted,
    and the error is raised; with token, a job whose token the table holds
    does nothing. With partial_progress_enabled the groups are committed as
    they finish (with a client), in at most partial_progress_max_commits
    commits (default 10); a group that fails or conflicts is reported in
    its entry of "groups" ("error") and the others stay committed; each
    commit's token is the run's and a hash of the files it replaces, so a
    job retried after a crash commits only what the first did not.

    Returns t.maintenance.rewrite_data_files' result dict."""
    if options.pop("progress", None) is not None:
        raise ValueError("floe.dask.rewrite_data_files takes no progress callback: Dask's dashboard shows the groups")
    open_options = dict(open_options or {})
    t, own = _table(table, identifier, open_options)
    try:
        if not own and t._reload is not None:
            t.refresh()
        if token is not None and not partial_progress_enabled:
            found = _token_snapshot(t, token)
            if found is not None:
                return _RewriteRun(None).token_found(found)
        plan = _rewrite.plan_rewrite(t, dict(options, filter=None if row_filter is None else _filter(row_filter), token=token, branch=branch,
                                             partial_progress_enabled=bool(partial_progress_enabled) or None,
                                             partial_progress_max_commits=partial_progress_max_commits))
        run = _RewriteRun(plan)
        groups = plan["groups"]
        if not groups:
            return run.result()
        worker_options = open_options or _worker_options(t._options)
        finished = _run_groups(client, groups, t.metadata_location, worker_options)
        if partial_progress_enabled:
            max_commits = plan["options"].get("partial-progress.max-commits") or 10
            per_commit = -(-len(groups) // max_commits)
            pending = []
            for i, r in finished:
                if isinstance(r, _Failed):
                    run.failed([i], r.error)
                    continue
                pending.append((i, r))
                if len(pending) >= per_commit:
                    run.commit(t, pending, token, branch, partial=True)
                    pending = []
            if pending:
                run.commit(t, pending, token, branch, partial=True)
            return run.result()
        # Every worker finished before deciding: one still writing when a
        # failure is raised would leave its files behind.
        results = list(finished)
        failed = [r.error for _, r in results if isinstance(r, _Failed)]
        done = [(i, r) for i, r in results if not isinstance(r, _Failed)]
        if failed:
            if done:
                _discard_rewrite(t, [r for _, r in done], failed[0])
            raise failed[0]
        run.commit(t, done, token, branch, partial=False)
        return run.result()
    finally:
        if own:
            t.close()


def _run_groups(client, groups, metadata_location, worker_options):
    """(index, result) of each group as its worker finishes it (with a
    client; else all at once after they all finished)."""
    encoded = [json.dumps(g).encode("utf-8") for g in groups]
    if client is None:
        import dask

        results = dask.compute(*[dask.delayed(_rewrite_group)(g, metadata_location, worker_options) for g in encoded])
        yield from enumerate(results)
        return
    import distributed

    futures = client.map(_rewrite_group, encoded, metadata_location=metadata_location, open_options=worker_options,
                         pure=False)
    index = {f.key: i for i, f in enumerate(futures)}
    for f, r in distributed.as_completed(futures, with_results=True):
        yield index[f.key], r


class _RewriteRun:
    """What a distributed compaction did, in t.maintenance.rewrite_data_files'
    result form."""

    def __init__(self, plan):
        self.plan = plan
        groups = plan["groups"] if plan else []
        self.groups = [{"id": g["id"], "partition": g["partition"], "input_files": len(g["data_files"]),
                        "input_bytes": g["input_bytes"], "output_files": 0} for g in groups]
        self.totals = {"rewritten_data_files_count": 0, "added_data_files_count": 0, "rewritten_bytes_count": 0,
                       "removed_delete_files_count": 0, "failed_data_files_count": 0}
        self.snapshot_ids = []
        self.found = False

    def token_found(self, snapshot_id):
        self.snapshot_ids, self.found = [snapshot_id], True
        return self.result()

    def failed(self, indexes, error):
        for i in indexes:
            self.groups[i]["error"] = str(error)
            self.totals["failed_data_files_count"] += self.groups[i]["input_files"]

    def commit(self, t, done, token, branch, partial):
        """Commits the (index, result) pairs in one snapshot; a failed
        partial commit is noted on its groups, any other raises."""
        try:
            c = _rewrite.commit_rewrite(t, [r for _, r in done], token=token, branch=branch, discard_refused=True,
                                        partial_progress=partial)
        except FloeError as e:
            if not partial:
                raise
            self.failed([i for i, _ in done], e)
            return
        sid = c["snapshot_id"]
        self.snapshot_ids.append(sid)
        self.found = self.found or c["token_found"]
        self.totals["removed_delete_files_count"] += len(c["removed_delete_files"])
        for i, r in done:
            g = self.groups[i]
            g["snapshot_id"] = sid
            g["output_files"] = len((json.loads(r).get("added") or {}).get("files") or [])
            if not c["token_found"]:
                self.totals["rewritten_data_files_count"] += g["input_files"]
                self.totals["rewritten_bytes_count"] += g["input_bytes"]
                self.totals["added_data_files_count"] += g["output_files"]

    def result(self):
        return dict({"starting_snapshot_id": self.plan["starting_snapshot_id"] if self.plan else None,
                     "groups": self.groups, "snapshot_ids": self.snapshot_ids, "token_found": self.found},
                    **self.totals)


def _discard_rewrite(t, results, cause):
    """Deletes the files the other groups' workers wrote for a compaction
    that will not commit; a failed discard becomes a note on cause."""
    try:
        _rewrite.discard_rewrite(t, results)
    except FloeError as e:
        note = getattr(cause, "add_note", None)
        if note is not None:
            note(f"the files the job's workers wrote were not deleted: {e}")


__all__ = ["read_table", "write_table", "rewrite_data_files"]
