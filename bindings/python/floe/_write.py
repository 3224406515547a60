"""Creating tables, writing data files and committing, over libfloe's C API.

Data to write is any object with ``__arrow_c_stream__`` (a pyarrow Table or
RecordBatchReader, a polars DataFrame, a floe Scan...), any object with
``__arrow_c_array__`` (a pyarrow RecordBatch), or, with no Arrow library at
all, a list of dicts (one per row, keys are column names) encoded as JSON:
dates, times and timestamps go as ISO strings, Decimal as text, bytes as
base64. A pandas DataFrame needs no pyarrow either: _pandas_input turns
its columns into Arrow C data (missing values as nulls)."""

import base64
import ctypes
import dataclasses
import datetime
import decimal
import json
import re
import uuid

from . import _progress
from ._calls import _c_str, _check, _dumps, _json_arg, _take_bytes, _take_string
from ._lib import ArrowArrayStream, library
from ._metadata import Schema, StructType
from .types import _iceberg_json
from .expressions import AlwaysTrue, _filter

# pyiceberg's default filter of delete and overwrite: every row.
_ALWAYS_TRUE = AlwaysTrue()

_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


@dataclasses.dataclass
class UpsertResult:
    """What upsert did, as pyiceberg's UpsertResult says it: rows replaced
    and rows added. snapshot_id (not compared) is the snapshot holding the
    change, or the current one when there was nothing to change."""

    rows_updated: int = 0
    rows_inserted: int = 0
    snapshot_id: int = dataclasses.field(default=0, compare=False)


def _commit_options(token, properties, run_id=None, branch=None, delete_mode=None, discard_refused=False):
    opts = {}
    if discard_refused:
        opts["discard_refused"] = True
    if delete_mode is not None:
        opts["delete_mode"] = str(delete_mode)
    if token is not None:
        opts["token"] = str(token)
    if properties:
        opts["properties"] = {str(k): str(v) for k, v in properties.items()}
    if run_id is not None:
        opts["run_id"] = str(run_id)
    if branch is not None:
        opts["branch"] = str(branch)
    return _json_arg(opts)


def _filter_arg(row_filter):
    row_filter = _filter(row_filter)
    if isinstance(row_filter, dict):
        return _dumps(row_filter).encode("utf-8")
    return _c_str(str(row_filter), "row filter")


def _json_value(v):
    if hasattr(v, "item") and type(v).__module__ == "numpy":
        return v.item()  # a numpy scalar inside a nested value
    if type(v).__name__ in ("NAType", "NaTType"):
        return None  # pandas' missing values
    if isinstance(v, (datetime.datetime, datetime.date, datetime.time)):
        return v.isoformat()
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(v)).decode("ascii")
    if isinstance(v, uuid.UUID):
        return base64.b64encode(v.bytes).decode("ascii")
    raise TypeError(f"cannot write a {type(v).__name__} value")


class _StreamArg:
    """An ArrowArrayStream for one floe call that consumes it, made from
    the caller's data. The objects that own the memory (capsules) are kept
    alive until the call is over; floe moves the stream out and releases
    it, and the capsule destructors then only free their structures."""

    def __init__(self, table, data):
        self._keep = []
        lib = library()
        if hasattr(data, "__arrow_c_stream__"):
            capsule = data.__arrow_c_stream__()
            self._keep.append(capsule)
            self.address = _capsule_pointer(capsule, b"arrow_array_stream")
        elif hasattr(data, "__arrow_c_array__"):
            schema_capsule, array_capsule = data.__arrow_c_array__()
            self._keep += [schema_capsule, array_capsule]
            stream = ArrowArrayStream()
            self._keep.append(stream)
            _check(lib.floe_array_stream(_capsule_pointer(schema_capsule, b"arrow_schema"),
                                         _capsule_pointer(array_capsule, b"arrow_array"),
                                         ctypes.addressof(stream)))
            self.address = ctypes.addressof(stream)
        elif _is_pandas_frame(data):
            from . import _pandas_input

            schema_ptr, array_ptr, rows = _pandas_input.frame_batch(data, table.schema(), self._keep)
            if rows is not None:
                self._json_rows(table, rows)
                return
            stream = ArrowArrayStream()
            self._keep.append(stream)
            _check(lib.floe_array_stream(schema_ptr, array_ptr, ctypes.addressof(stream)))
            self.address = ctypes.addressof(stream)
        elif isinstance(data, (list, tuple)) and all(isinstance(r, dict) for r in data):
            self._json_rows(table, data)
        else:
            raise TypeError("data must have __arrow_c_stream__ or __arrow_c_array__, or be a pandas DataFrame "
                            f"or a list of dicts, not {type(data).__name__}")

    def _json_rows(self, table, rows):
        text = "\n".join(json.dumps(r, default=_json_value) for r in rows).encode("utf-8")
        stream = ArrowArrayStream()
        self._keep.append(stream)
        _check(library().floe_json_rows_stream(table._handle, text, len(text), ctypes.addressof(stream)))
        self.address = ctypes.addressof(stream)


def _is_pandas_frame(data):
    """A pandas DataFrame, known without importing pandas. It is taken
    before __arrow_c_stream__ (pandas 2.2 has one, through pyarrow), so a
    frame is written the same way with or without pyarrow."""
    return type(data).__name__ == "DataFrame" and type(data).__module__.startswith("pandas.")


class TableWrites:
    """The write and commit methods of floe.Table. Each commit takes
    ``token`` (a commit with a token some snapshot already carries commits
    nothing and returns that snapshot's id: retried pipeline steps never
    commit twice) and ``properties`` (extra snapshot summary entries), and
    returns the snapshot id. A commit that loses to another writer in a
    way it cannot retry raises FloeError with Status.CONFLICT, committing
    nothing."""

    @classmethod
    def create(cls, location, schema, partition_by=None, partition_spec=None, sort_order=None, properties=None,
               format_version=None, warehouse=None, ensure=False, s3=None, azure=None, gcs=None):
        """Creates a table at location (a directory, or "ns.table" under
        ``warehouse`` / $FLOE_WAREHOUSE) and returns it, opened.

        schema is an Iceberg schema: a dict (or JSON text) in the table
        metadata form ``{"type": "struct", "fields": [{"id": 1, "name": "a",
        "required": False, "type": "long"}]}``, or a Schema as
        Table.schema() returns it (pyiceberg's Schema too); ids all 0 get
        fresh ids. partition_by lists partition fields, each a column name
        (identity), "day(ts)", "bucket(16, id)", "ts:day", a (column,
        transform) pair, or a dict {"column", "transform", "name"};
        transforms are Iceberg's (identity, year, month, day, hour,
        bucket[N], truncate[W], void). partition_spec is a spec instead
        (floe.partitioning.PartitionSpec or its dict), sort_order a
        floe.table.sorting.SortOrder or its dict. With ensure,
        an existing table is opened and its schema brought up to schema by
        name. An existing table otherwise raises FloeError (CONFLICT). s3,
        gcs and azure are dicts of S3, GCS and Azure settings, as Table.open
        takes."""
        opts = _create_options(partition_by=partition_by, partition_spec=partition_spec, sort_order=sort_order,
                               properties=properties, format_version=format_version, warehouse=warehouse, s3=s3,
                               azure=azure, gcs=gcs, ensure=ensure)
        schema_json = _schema_json(schema)
        handle = ctypes.c_void_p()
        _check(library().floe_table_create(_c_str(str(location), "table location"), schema_json.encode("utf-8"),
                                           _json_arg(opts), ctypes.byref(handle)))
        open_opts = {k: v for k, v in (("warehouse", warehouse), ("s3", s3), ("azure", azure), ("gcs", gcs)) if v}
        location = str(location)
        return cls(handle.value, open_opts, reload=lambda: cls.open(location, **open_opts))

    def _committed(self, snapshot_id):
        self._metadata = None  # the handle now holds the committed version
        return snapshot_id.value

    def _commit_stream(self, fn, data, token, properties, run_id=None, branch=None, progress=None, verb="append"):
        arg = _StreamArg(self, data)
        snapshot_id = ctypes.c_int64()
        options = _commit_options(token, properties, run_id, branch)
        _progress.polled(self, progress, verb,
                         lambda: _check(fn(self._handle, arg.address, options, ctypes.byref(snapshot_id))),
                         rows_total=_rows_total(data))
        return self._committed(snapshot_id)

    def append(self, df, snapshot_properties=None, branch=None, token=None, properties=None, progress=None):
        """Writes df as new data files and commits them in one append
        snapshot (pyiceberg's append: df is anything Arrow, a pandas
        DataFrame or a list of row dicts). Appending nothing still commits
        an empty snapshot. snapshot_properties (pyiceberg's name) or
        properties (floe's) are extra snapshot summary entries: give one.
        progress: a callable told the append's floe.Progress (rows taken
        from df, of its length when df has one) while it runs, or True
        for a status line on stderr when it is a terminal."""
        return self._commit_stream(library().floe_append, df, token,
                                   _summary(snapshot_properties, properties), branch=branch, progress=progress)

    def dynamic_partition_overwrite(self, df, snapshot_properties=None, branch=None, token=None, properties=None,
                                    progress=None):
        """pyiceberg's name for replace_partitions: writes df and commits
        it in place of the rows of every partition it lands in (an
        unpartitioned table: every row), in one snapshot; partitions df
        has no row for keep theirs. snapshot_properties (or properties),
        token, branch and progress as append takes them. Returns the
        snapshot id."""
        return self.replace_partitions(df, token=token, properties=_summary(snapshot_properties, properties),
                                       branch=branch, progress=progress)

    def replace_partitions(self, data, token=None, properties=None, run_id=None, branch=None, progress=None):
        """Writes data and commits it in place of what other writers left in
        the partitions it lands in. With run_id, only the run's first commit
        to a partition replaces; its later ones append. progress as append
        takes it."""
        return self._commit_stream(library().floe_replace_partitions, data, token, properties, run_id, branch,
                                   progress=progress, verb="replace partitions")

    def delete_rows(self, row_filter, token=None, properties=None, delete_mode=None, branch=None):
        """Deletes the rows row_filter selects (pyiceberg text such as
        "id < 10", a floe.expressions expression, or a REST JSON
        expression dict) in one snapshot and returns its id; when no row
        matches, nothing is committed and the current snapshot's id (0 for
        none) comes back. delete_mode is "copy-on-write" or
        "merge-on-read" (default: the table's write.delete.mode, else
        copy-on-write)."""
        snapshot_id = ctypes.c_int64()
        _check(library().floe_delete_rows(self._handle, _filter_arg(row_filter),
                                          _commit_options(token, properties, branch=branch, delete_mode=delete_mode),
                                          ctypes.byref(snapshot_id)))
        return self._committed(snapshot_id)

    def delete(self, delete_filter=_ALWAYS_TRUE, snapshot_properties=None, case_sensitive=True, branch=None,
               token=None, properties=None, delete_mode=None):
        """pyiceberg's delete: deletes the rows delete_filter selects
        (default every row) as delete_rows does, and returns the snapshot
        id (the current one when no row matched: nothing is committed).
        case_sensitive=False matches the column names of an expression
        (or REST JSON) filter whatever their case; a text filter then
        raises ValueError (libfloe binds text to exact names)."""
        delete_filter = _case_resolved(self, delete_filter, case_sensitive, "delete")
        return self.delete_rows(delete_filter, token=token, properties=_summary(snapshot_properties, properties),
                                delete_mode=delete_mode, branch=branch)

    def overwrite(self, df, overwrite_filter=_ALWAYS_TRUE, snapshot_properties=None, case_sensitive=True,
                  branch=None, token=None, properties=None, delete_mode=None, progress=None, row_filter=None):
        """Replaces the rows overwrite_filter selects (default: every row,
        as pyiceberg's) with df, in one overwrite snapshot. row_filter is
        floe's older name for overwrite_filter (give one).
        snapshot_properties or properties, token, branch and progress as
        append takes them; delete_mode as delete_rows. case_sensitive as
        delete takes it. Returns the snapshot id."""
        if row_filter is not None:
            if overwrite_filter is not _ALWAYS_TRUE:
                raise TypeError("overwrite takes overwrite_filter or row_filter, not both")
            overwrite_filter = row_filter
        overwrite_filter = _case_resolved(self, overwrite_filter, case_sensitive, "overwrite")
        properties = _summary(snapshot_properties, properties)
        arg = _StreamArg(self, df)
        snapshot_id = ctypes.c_int64()
        where = _filter_arg(overwrite_filter)
        options = _commit_options(token, properties, branch=branch, delete_mode=delete_mode)
        _progress.polled(self, progress, "overwrite", lambda: _check(
            library().floe_overwrite(self._handle, where, arg.address, options, ctypes.byref(snapshot_id))),
            rows_total=_rows_total(df))
        return self._committed(snapshot_id)

    def upsert(self, df, join_cols=None, when_matched_update_all=True, when_not_matched_insert_all=True,
               case_sensitive=True, branch=None, snapshot_properties=None, token=None, mode=None, progress=None):
        """Merges df (anything append takes) into the table by key, as
        pyiceberg's upsert does, in one snapshot: rows whose key (join_cols,
        default the schema's identifier fields) matches live rows replace
        them, the others are inserted; rows equal to the live one are
        skipped. mode is "merge-on-read" (default on format v2/v3: position
        deletes or deletion vectors), "copy-on-write" or "equality-deletes".
        Two rows of df with one key raise FloeError (INVALID_ARGUMENT)
        before anything is written. Returns UpsertResult(rows_updated,
        rows_inserted), with the snapshot's id as its snapshot_id. progress
        as append takes it (the rows of df taken)."""
        opts = {
            "when_matched_update_all": bool(when_matched_update_all),
            "when_not_matched_insert_all": bool(when_not_matched_insert_all),
            "case_sensitive": bool(case_sensitive),
        }
        if join_cols is not None:
            if isinstance(join_cols, str):
                join_cols = [join_cols]
            opts["join_cols"] = [str(c) for c in join_cols]
        if mode is not None:
            opts["mode"] = str(mode)
        if token is not None:
            opts["token"] = str(token)
        if snapshot_properties:
            opts["properties"] = {str(k): str(v) for k, v in snapshot_properties.items()}
        if branch is not None:
            opts["branch"] = str(branch)
        arg = _StreamArg(self, df)
        out = ctypes.c_void_p()
        _progress.polled(self, progress, "upsert", lambda: _check(
            library().floe_upsert(self._handle, arg.address, _json_arg(opts), ctypes.byref(out))),
            rows_total=_rows_total(df))
        self._metadata = None
        res = json.loads(_take_string(out))
        return UpsertResult(res["rows_updated"], res["rows_inserted"], snapshot_id=res["snapshot_id"])

    def write_files(self, data):
        """Writes data as data files without committing them; returns their
        entries as bytes for append_files or commit (in any process)."""
        arg = _StreamArg(self, data)
        ptr, size = ctypes.c_void_p(), ctypes.c_size_t()
        _check(library().floe_write_files(self._handle, arg.address, ctypes.byref(ptr), ctypes.byref(size)))
        return _take_bytes(ptr, size)

    def append_files(self, files, token=None, properties=None, branch=None, discard_refused=False):
        """Commits data files from write_files in one append snapshot. The
        files are never deleted, unless discard_refused: they were written
        for this commit only, and go (as discard_files deletes them) when
        it raises (except COMMIT_STATE_UNKNOWN) or finds its token
        committed by an earlier attempt."""
        files = bytes(files)
        snapshot_id = ctypes.c_int64()
        _check(library().floe_append_files(self._handle, files, len(files),
                                           _commit_options(token, properties, branch=branch,
                                                           discard_refused=discard_refused),
                                           ctypes.byref(snapshot_id)))
        return self._committed(snapshot_id)

    def replace_partitions_files(self, files, token=None, properties=None, run_id=None, branch=None,
                                 discard_refused=False):
        """Commits data files from write_files as replace_partitions commits
        its own: the partitions they land in lose the files other writers
        left there (FloeError CONFLICT when one of those partitions changed
        after the version this handle holds). discard_refused as for
        append_files."""
        files = bytes(files)
        snapshot_id = ctypes.c_int64()
        _check(library().floe_replace_partitions_files(self._handle, files, len(files),
                                                       _commit_options(token, properties, run_id, branch,
                                                                       discard_refused=discard_refused),
                                                       ctypes.byref(snapshot_id)))
        return self._committed(snapshot_id)

    def discard_files(self, files):
        """Deletes data files from write_files that no commit took (the job
        gave up, or its commit raised): append_files and the other commits
        never delete the files they are given unless discard_refused asks
        them to, which also covers a token found. Every file is checked
        first, against the table's newest version: one outside the table's
        data location raises FloeError (INVALID_ARGUMENT), one that any
        snapshot references (CONFLICT); nothing is deleted then. Files
        already gone are fine. Do not call it after COMMIT_STATE_UNKNOWN:
        the table may yet hold them."""
        files = bytes(files)
        _check(library().floe_discard_files(self._handle, files, len(files)))

    def add_files(self, file_paths, snapshot_properties=None, check_duplicate_files=True, branch=None, token=None,
                  properties=None, progress=None):
        """Registers Parquet files that already exist (their locations) as
        data files in one append snapshot, without rewriting them
        (pyiceberg's add_files). Metrics come from each file's footer;
        files without field ids are matched by name; identity partition
        values come from Hive-style name=value directories or from
        statistics showing one value per file. A path given twice raises
        ValueError, as pyiceberg's does. Raises FloeError
        (INVALID_ARGUMENT) naming the file and column when a file does not
        fit the table, and (CONFLICT) when the table already has it:
        floe checks that always, check_duplicate_files=False included (a
        file listed twice would have its rows read twice).
        snapshot_properties (or properties), token and branch as append
        takes them. progress: a callable told the call's floe.Progress
        (files whose footers were read, and their bytes) while it runs, or
        True for a status line on stderr when it is a terminal. Returns
        the snapshot id."""
        if isinstance(file_paths, (str, bytes)):
            raise TypeError("add_files takes a list of paths")
        file_paths = [str(p) for p in file_paths]
        if len(set(file_paths)) != len(file_paths):
            raise ValueError("add_files: file paths must be unique")
        paths = json.dumps(file_paths).encode("utf-8")
        snapshot_id = ctypes.c_int64()
        options = _commit_options(token, _summary(snapshot_properties, properties), branch=branch)
        _progress.polled(self, progress, "add-files", lambda: _check(
            library().floe_add_files(self._handle, paths, options, ctypes.byref(snapshot_id))))
        return self._committed(snapshot_id)

    def commit(self, added=None, removed=None, token=None, properties=None, branch=None):
        """Commits files added (bytes from write_files) and removed (paths
        as the table's manifests write them) in one snapshot; raises
        FloeError (CONFLICT), committing nothing, when a file to remove is
        no longer in the table."""
        added = bytes(added) if added else None
        removed_json = json.dumps([str(p) for p in removed]).encode("utf-8") if removed else None
        snapshot_id = ctypes.c_int64()
        _check(library().floe_commit(self._handle, added, len(added) if added else 0, removed_json,
                                     _commit_options(token, properties, branch=branch),
                                     ctypes.byref(snapshot_id)))
        return self._committed(snapshot_id)

    def expire_snapshots(self, older_than_ms=None, retain_last=None, keep_files=False, progress=None):
        """Expires snapshots older than older_than_ms (ms since the epoch;
        default from history.expire.max-snapshot-age-ms) beyond the newest
        retain_last, and deletes files no snapshot references any more.
        Returns a dict: expired_snapshots, removed_refs, deleted_files,
        failed_deletes, outside (unreferenced files left because they lie
        outside the table's location). progress: a callable told the
        call's floe.Progress (files deleted of those to delete) while it
        runs, or True for a status line on stderr when it is a terminal."""
        opts = {}
        if older_than_ms is not None:
            opts["older_than_ms"] = int(older_than_ms)
        if retain_last is not None:
            opts["retain_last"] = int(retain_last)
        if keep_files:
            opts["keep_files"] = True
        out = ctypes.c_void_p()
        try:
            _progress.polled(self, progress, "expire", lambda: _check(
                library().floe_expire_snapshots(self._handle, _json_arg(opts), ctypes.byref(out))),
                noun="files deleted")
        finally:
            self._metadata = None
        return json.loads(_take_string(out))


def _summary(snapshot_properties, properties):
    """The snapshot summary entries of a commit: pyiceberg's
    snapshot_properties and floe's properties are the same thing."""
    if snapshot_properties and properties:
        raise TypeError("give snapshot_properties or properties (the same snapshot summary entries), not both")
    return snapshot_properties or properties


def _case_resolved(table, row_filter, case_sensitive, call):
    """row_filter with its column names spelled as the table's current
    schema spells them, when case_sensitive is False: floe_delete_rows and
    floe_overwrite bind filters to exact names (they have no
    case-insensitive binding), so an expression's or REST JSON filter's
    names are resolved here. Text is bound in libfloe alone: ValueError."""
    if case_sensitive:
        return row_filter
    row_filter = _filter(row_filter)
    if isinstance(row_filter, str):
        raise ValueError(f"{call}: case_sensitive=False needs the filter as an expression or REST JSON dict; "
                         "floe binds a text filter's columns by their exact names")
    names = {}
    for path, _ in table.schema()._walk():
        names.setdefault(path.lower(), set()).add(path)

    def resolve(name):
        found = names.get(str(name).lower(), set())
        if len(found) > 1:
            raise ValueError(f"{call}: column {name!r} matches {', '.join(sorted(found))} without case")
        return next(iter(found)) if found else name  # unknown: libfloe names it

    def walk(node):
        if isinstance(node, dict):
            return {k: (resolve(v) if k == "term" and isinstance(v, str) else walk(v)) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    return walk(row_filter)


def _rows_total(data):
    """The rows data holds, when it says without being read: a list of
    rows, a pandas DataFrame, a pyarrow Table or RecordBatch; else None."""
    if isinstance(data, (list, tuple)) or _is_pandas_frame(data):
        return len(data)
    n = getattr(data, "num_rows", None)
    return n if isinstance(n, int) else None


def _schema_json(schema):
    """A create call's schema as JSON text: text as it is, a dict, floe's
    Schema (or StructType), an Arrow schema (__arrow_c_schema__),
    pyiceberg's Schema through its own JSON form."""
    if isinstance(schema, str):
        return schema
    if isinstance(schema, (Schema, StructType)):
        return json.dumps(dict(schema.model_dump(), type="struct"))
    if hasattr(schema, "__arrow_c_schema__") and not hasattr(schema, "model_dump_json"):
        # An Arrow schema (pyarrow's, a floe Scan's), as pyiceberg's getting
        # started creates its table from df.schema: fresh field ids.
        from ._update_schema import _arrow_schema_json

        return json.dumps(_arrow_schema_json(schema))
    if isinstance(schema, dict):
        return json.dumps(schema)
    if hasattr(schema, "model_dump_json"):  # pyiceberg.schema.Schema (pydantic)
        return schema.model_dump_json(by_alias=True)
    raise TypeError(f"schema must be a dict, JSON text or a Schema, not {type(schema).__name__}")


# The transforms partition_by names (Iceberg's spelling; N a width).
_TRANSFORM = r"(?:identity|year|month|day|hour|void|bucket\[\d+\]|truncate\[\d+\])"
# "day(ts)", "bucket(16, id)", "bucket[16](id)": pyiceberg's and Spark's call form.
_CALL_FORM = re.compile(r"^\s*(identity|year|month|day|hour|void|bucket|truncate)(?:\[(\d+)\])?\s*\(\s*"
                        r"(?:(\d+)\s*,\s*)?([^(),]+?)\s*\)\s*$")
# "ts:day", "id:bucket[16]": the column, a colon, an Iceberg transform.
_COLON_FORM = re.compile(r"^(.+):\s*(" + _TRANSFORM + r")\s*$")


def _partition_field(p):
    """One partition_by entry as {"column", "transform"[, "name"]}."""
    if isinstance(p, dict):
        return dict(p)
    if isinstance(p, (tuple, list)):
        if len(p) != 2:
            raise ValueError(f"partition_by entry {p!r}: a pair is (column, transform)")
        return {"column": str(p[0]), "transform": str(p[1])}
    if not isinstance(p, str):
        raise TypeError(f"partition_by entry {p!r}: give a column name, \"day(ts)\", \"ts:day\" or (column, transform)")
    m = _CALL_FORM.match(p)
    if m:
        name, bracket, width, column = m.groups()
        if name in ("bucket", "truncate"):
            if (bracket is None) == (width is None):
                raise ValueError(f"partition_by {p!r}: {name} takes one width, as {name}(16, col)")
            name = f"{name}[{bracket or width}]"
        elif bracket is not None or width is not None:
            raise ValueError(f"partition_by {p!r}: {name} takes no width")
        return {"column": column, "transform": name}
    m = _COLON_FORM.match(p)
    if m:
        return {"column": m.group(1), "transform": m.group(2)}
    return {"column": p}


def _create_options(partition_by=None, partition_spec=None, sort_order=None, properties=None, format_version=None,
                    warehouse=None, s3=None, ensure=False, location=None, azure=None, gcs=None):
    """The create options JSON object of floe_table_create and
    floe_catalog_create_table."""
    opts = {}
    if partition_by:
        if isinstance(partition_by, (str, dict)):
            partition_by = [partition_by]
        opts["partition_by"] = [_partition_field(p) for p in partition_by]
    # floe's and pyiceberg's PartitionSpec and SortOrder objects as their
    # Iceberg JSON; dicts as they are.
    partition_spec = None if partition_spec is None else _iceberg_json(partition_spec, "partition_spec")
    sort_order = None if sort_order is None else _iceberg_json(sort_order, "sort_order")
    for key, value in (("partition_spec", partition_spec), ("sort_order", sort_order),
                       ("format_version", format_version), ("warehouse", warehouse), ("s3", s3),
                       ("azure", azure), ("gcs", gcs), ("location", location)):
        if value is not None:
            opts[key] = value
    if properties:
        opts["properties"] = {str(k): str(v) for k, v in properties.items()}
    if ensure:
        opts["ensure"] = True
    return opts
