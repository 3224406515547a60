"""Tables, scans and tasks over libfloe's C API."""

import ctypes
import datetime
import json
import threading

from . import _arrow, _progress
from ._errors import FloeError, Status
from .expressions import _filter
from ._calls import _c_str, _check, _dumps, _json_arg, _take_string
from ._lib import ArrowArray, ArrowArrayStream, ArrowSchema, library
from ._scan_fluent import ScanFluent
from ._table_info import TableInfo
from ._transaction import TableChanges
from ._write import TableWrites

_py_capsule_new = ctypes.pythonapi.PyCapsule_New
_py_capsule_new.restype = ctypes.py_object
_py_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]


class _Handle:
    """An owned floe handle, freed once by close() or the garbage collector.
    A closed object keeps the stale handle: calls through it reach floe,
    which answers INVALID_ARGUMENT rather than crashing."""

    _free_name = None

    def __init__(self, handle):
        self._handle = handle
        self._closed = False
        self._close_lock = threading.Lock()

    def close(self):
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
        _check(getattr(library(), self._free_name)(self._handle))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # at interpreter exit, or a handle already gone
            pass


class Table(_Handle, TableWrites, TableInfo, TableChanges):
    """An opened Iceberg table (one version of its metadata). Commits made
    through it (see TableWrites) move it to the version they commit."""

    _free_name = "floe_table_free"

    def __init__(self, handle, options, reload=None):
        super().__init__(handle)
        self._options = options
        self._reload = reload  # a new Table of the same table's newest metadata
        self._metadata = None

    @classmethod
    def open(cls, location, location_map=None, relocate=True, **options):
        """Opens the table at location: a table directory, a metadata JSON
        file, or "ns.table" under a warehouse.

        location_map maps location prefixes written in the table's metadata
        (``hdfs://nn/warehouse/t``) onto where the files are now. A table
        found away from the location its metadata records (a copy, a
        move) is read from where it was found, and writes and deletes stay
        there; ``relocate=False`` reads the recorded paths as they are. Other
        keyword options go to floe as they are: ``warehouse`` (for dataset
        names) and ``s3`` (a dict of S3 settings: endpoint, region,
        access_key_id, secret_access_key, session_token, anonymous,
        path_style, max_attempts, part_size), ``gcs`` (GCS settings for
        gs://: project_id, oauth2_token, service_host, anonymous,
        max_attempts, chunk_size) and ``azure`` (Azure settings
        for abfs[s]:// and wasb[s]://: account_name, account_key,
        sas_token, sas_tokens, connection_string, blob_storage_authority,
        blob_storage_scheme, anonymous, max_attempts, block_size)."""
        opts = dict(options)
        if location_map:
            opts["location_map"] = dict(location_map)
        if not relocate:
            opts["relocate"] = False
        handle = ctypes.c_void_p()
        _check(library().floe_table_open(_c_str(str(location), "table location"), _json_arg(opts), ctypes.byref(handle)))
        location = str(location)
        return cls(handle.value, opts, reload=lambda: Table.open(location, **opts))

    def refresh(self):
        """Reloads the table's newest metadata from where it was opened: its
        location, or the catalog that loaded it. Returns the table, as
        pyiceberg does."""
        if self._reload is None:
            raise FloeError(Status.INVALID_ARGUMENT, "this table was not opened by location or through a catalog")
        fresh = self._reload()
        with self._close_lock:
            old, closed = self._handle, self._closed
            self._handle, self._closed, self._metadata = fresh._handle, False, None
            fresh._closed = True  # its handle is ours now
        if not closed:
            _check(getattr(library(), self._free_name)(old))
        return self

    @property
    def metadata(self):
        """The table metadata as a dict, in the Iceberg metadata JSON form."""
        if self._metadata is None:
            out = ctypes.c_void_p()
            _check(library().floe_table_metadata_json(self._handle, ctypes.byref(out)))
            self._metadata = json.loads(_take_string(out))
        return self._metadata

    @property
    def current_snapshot_id(self):
        """The current snapshot's id, or -1 while the table has none. A
        step that records it and later scans with snapshot_id= it reads the
        same rows whatever was committed since; -1 keeps reading none."""
        sid = self.metadata.get("current-snapshot-id")
        return -1 if sid is None else sid

    @property
    def metadata_location(self):
        """The metadata file this table was read from."""
        out = ctypes.c_void_p()
        _check(library().floe_table_metadata_location(self._handle, ctypes.byref(out)))
        return _take_string(out)

    @property
    def inspect(self):
        """The table's metadata tables, with pyiceberg's names:
        ``t.inspect.snapshots()``, ``t.inspect.files(snapshot_id=…)``, …
        (floe.InspectTable)."""
        from ._inspect import InspectTable

        return InspectTable(self)

    @property
    def maintenance(self):
        """The table's maintenance actions: ``t.maintenance.remove_orphan_files()``,
        ``rewrite_manifests()``, ``remove_dangling_deletes()``,
        ``compute_statistics()``, ``rewrite_data_files()`` (floe.MaintenanceTable)."""
        from ._maintenance import MaintenanceTable

        return MaintenanceTable(self)

    def scan(self, row_filter=None, selected_fields=None, snapshot_id=None, as_of_timestamp=None, ref=None,
             limit=None, batch_size=None, threads=None, case_sensitive=True, split_size=None, ordered=None,
             **io_options):
        """Plans a scan. Names follow pyiceberg: selected_fields are dotted
        column names (None or ("*",) for every column); as_of_timestamp is
        a datetime (one without a zone is UTC) or milliseconds since the
        epoch; snapshot_id, as_of_timestamp and
        ref are exclusive. row_filter is pyiceberg's text form ("a < 10 and b = 'x'"), a
        floe.expressions expression (EqualTo("b", "x")) or a dict in the
        Iceberg REST JSON expression form. split_size is the bytes of
        data per task of plan_tasks() (larger files are cut into byte
        ranges, smaller ones packed together; default: the table's
        read.split.target-size, else 128 MiB). ordered=False lets a
        parallel read return batches in whatever order threads finish them.
        io_options are the C API's scan keys for I/O and memory:
        buffer_bytes (decoded batches an ordered parallel read holds ahead;
        256 MiB), coalesce_gap (merge byte ranges this close; 1 MiB, -1
        for none), max_request, io_concurrency, prefetch_bytes,
        memory_limit (bytes the scan holds at most: huge row groups are
        then read page by page; at least 16 MiB), and timeout_ms (bounds
        planning and each read of the scan, from its start to its end:
        FloeError TIMEOUT; default the table's).
        """
        opts = {}
        if row_filter is not None:
            opts["filter"] = _filter(row_filter)
        if selected_fields is not None and tuple(selected_fields) != ("*",):
            opts["columns"] = list(selected_fields)
        for key, value in (("snapshot_id", snapshot_id), ("as_of_timestamp", _epoch_ms(as_of_timestamp)), ("ref", ref),
                           ("limit", limit), ("batch_size", batch_size), ("threads", threads),
                           ("split_size", split_size), ("ordered", ordered)):
            if value is not None:
                opts[key] = value
        if not case_sensitive:
            opts["case_insensitive"] = True
        opts.update(io_options)  # unknown keys are refused by floe
        handle = ctypes.c_void_p()
        _check(library().floe_scan_open(self._handle, _json_arg(opts), ctypes.byref(handle)))
        return Scan(handle.value, self, {k: v for k, v in opts.items() if k in _READ_KEYS}, opts)

    def incremental_append_scan(self, from_snapshot_id=None, to_snapshot_id=None, row_filter=None,
                                selected_fields=None, *, from_snapshot_id_exclusive=None,
                                to_snapshot_id_inclusive=None, **scan_options):
        """Plans an incremental append scan: the rows the "append" snapshots
        after from_snapshot_id (exclusive; None: the oldest) up to
        to_snapshot_id (inclusive; None: the current snapshot, or the one
        ref= names) added, as Java's IncrementalAppendScan reads them:
        overwrites, replaces and deletes between are skipped and no delete
        file applies. from_snapshot_id must be on to_snapshot_id's ancestry
        (FloeError NOT_FOUND for an id the table lacks, INVALID_ARGUMENT
        for one off the path). from_snapshot_id_exclusive and
        to_snapshot_id_inclusive are pyiceberg's names for the same. Returns
        the same Scan as scan(); scan_options are scan()'s other keywords.
        """
        for name, value, alias in (("from_snapshot_id", from_snapshot_id, from_snapshot_id_exclusive),
                                   ("to_snapshot_id", to_snapshot_id, to_snapshot_id_inclusive)):
            if value is not None and alias is not None:
                raise ValueError(f"give {name} once")
        if from_snapshot_id is None:
            from_snapshot_id = from_snapshot_id_exclusive
        if to_snapshot_id is None:
            to_snapshot_id = to_snapshot_id_inclusive
        if from_snapshot_id is None and to_snapshot_id is None:
            # -1 is "before the first snapshot": without it the options
            # would plan an ordinary scan.
            from_snapshot_id = -1
        ids = {}
        if from_snapshot_id is not None:
            ids["from_snapshot_id"] = int(from_snapshot_id)
        if to_snapshot_id is not None:
            ids["to_snapshot_id"] = int(to_snapshot_id)
        # The ids are C API scan keys, which scan() passes through.
        return self.scan(row_filter=row_filter, selected_fields=selected_fields, **scan_options, **ids)

    def changelog_scan(self, from_snapshot_id=None, to_snapshot_id=None, row_filter=None, selected_fields=None,
                       **scan_options):
        """Plans a changelog scan: every row change of the snapshots after
        from_snapshot_id (exclusive; None: from the oldest) up to
        to_snapshot_id (inclusive; None: the current snapshot, or the one
        ref= names), as Java's changelog view reports them. Each row has
        the table's columns and _change_type ("INSERT", "DELETE", and
        "UPDATE_BEFORE"/"UPDATE_AFTER" for a row deleted and inserted again
        with the same identifier fields), _change_ordinal (0 for the first
        snapshot after from_snapshot_id) and _commit_snapshot_id. Rows a
        rewrite carries over unchanged are no change; "replace" snapshots
        (compaction) change nothing. selected_fields are top-level columns
        and the three change columns; row_filter applies to the rows on
        both sides of a change. Returns the same Scan as scan() (to_arrow(),
        to_pylist(), plan_tasks(), …; add_filter() and metrics() raise
        FloeError UNSUPPORTED); scan_options are scan()'s other keywords."""
        ids = {"changelog": True}
        if from_snapshot_id is not None:
            ids["from_snapshot_id"] = int(from_snapshot_id)
        if to_snapshot_id is not None:
            ids["to_snapshot_id"] = int(to_snapshot_id)
        return self.scan(row_filter=row_filter, selected_fields=selected_fields, **scan_options, **ids)

    def __repr__(self):
        state = "closed" if self._closed else self.metadata.get("location", "")
        return f"<floe.Table {state}>"


def _epoch_ms(when):
    """as_of_timestamp as milliseconds since the epoch: a datetime (naive
    is UTC, as Iceberg's timestamps without zone are; pandas' Timestamp
    too) or a number already in milliseconds."""
    if when is None or isinstance(when, bool):
        return when
    if isinstance(when, datetime.datetime):
        if when.tzinfo is None:
            when = when.replace(tzinfo=datetime.timezone.utc)
        delta = when - datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
        # Whole milliseconds, rounded down (a snapshot committed at t is
        # visible as of t, not as of a microsecond before it).
        return delta // datetime.timedelta(milliseconds=1)
    if isinstance(when, datetime.date):
        raise TypeError("as_of_timestamp takes a datetime or milliseconds since the epoch, not a date")
    return when


class _Readable:
    """Reading shared by scans and tasks: subclasses provide _open_stream
    (filling an ArrowArrayStream at an address) and _iceberg_types."""

    def _open_stream(self, address):
        raise NotImplementedError

    def _iceberg_types(self):
        return {}

    def __arrow_c_stream__(self, requested_schema=None):
        """The Arrow PyCapsule Interface: a new "arrow_array_stream"
        capsule. requested_schema is ignored: floe returns the scan's own
        schema, which the caller may cast."""
        lib = library()
        ptr = lib.floe_arrow_stream_new()
        if not ptr:
            raise MemoryError("cannot allocate an ArrowArrayStream")
        # The capsule owns the structure from here on: its destructor (C code
        # in libfloe) releases an unconsumed stream and frees it, also at
        # interpreter exit.
        capsule = _py_capsule_new(ptr, lib.floe_capsule_stream_name(),
                                  ctypes.cast(lib.floe_capsule_release_stream, ctypes.c_void_p).value)
        self._open_stream(ptr)
        return capsule

    def _progress_sampler(self):
        """A function of the rows read so far giving the read's Progress
        (a scan's from its metrics, see Scan); made before the read opens."""
        return lambda rows: _progress.Progress("read", rows=rows)

    def _batches(self, reporter=None, batch_rows=None):
        """Yields (schema Field, ArrowArray) per batch, releasing each batch
        when the caller moves on and the stream at the end. reporter (from
        _progress.reporter) is told the progress after each batch.
        batch_rows: this stream's batch size (a scan's only), instead of
        the scan's."""
        sample = reporter and self._progress_sampler()
        rows = 0
        stream = ArrowArrayStream()
        if batch_rows:
            self._open_stream(ctypes.addressof(stream), batch_rows)  # only a scan's _frame_batch_rows gives one
        else:
            self._open_stream(ctypes.addressof(stream))
        try:
            field = _stream_schema(stream)
            while True:
                batch = ArrowArray()
                rc = stream.get_next(ctypes.byref(stream), ctypes.byref(batch))
                if rc != 0:
                    raise _stream_error(stream, rc)
                try:
                    if reporter:  # a callback that raises still has the batch released
                        rows += batch.length if batch.release else 0
                        reporter(sample(rows))
                    if not batch.release:
                        return
                    yield field, batch
                finally:
                    if batch.release:  # not moved out by the caller (see _frame.BatchOwner)
                        batch.release(ctypes.byref(batch))
        finally:
            if stream.release:
                stream.release(ctypes.byref(stream))
            if reporter:
                reporter.finish()

    def to_pylist(self, progress=None):
        """Every row as a dict of Python values (see floe._arrow for the
        type mapping), decoded with ctypes alone. progress: a callable
        told the read's floe.Progress after each batch, or True for a
        status line on stderr when it is a terminal."""
        decoder = _arrow.Decoder(self._iceberg_types())
        rows = []
        for field, batch in self._batches(_progress.reporter(progress)):
            rows.extend(decoder.batch_rows(field, batch))
        return rows

    def count(self):
        """The number of rows, deletes applied (reads the data)."""
        return sum(batch.length for _, batch in self._batches())

    def to_arrow_batch_reader(self):
        """A pyarrow.RecordBatchReader over the batches (needs pyarrow)."""
        import pyarrow as pa

        if hasattr(pa.RecordBatchReader, "from_stream"):
            return pa.RecordBatchReader.from_stream(self)
        # pyarrow < 15: import from a structure the reader moves out of.
        stream = ArrowArrayStream()
        self._open_stream(ctypes.addressof(stream))
        return pa.RecordBatchReader._import_from_c(ctypes.addressof(stream))

    def to_arrow(self, progress=None):
        """A pyarrow.Table of every row (needs pyarrow). progress as
        to_pylist takes it."""
        reporter = _progress.reporter(progress)
        if reporter is None:
            return self.to_arrow_batch_reader().read_all()
        import pyarrow as pa

        sample = self._progress_sampler()
        reader = self.to_arrow_batch_reader()
        batches, rows = [], 0
        try:
            for batch in reader:
                batches.append(batch)
                rows += batch.num_rows
                reporter(sample(rows))
        finally:
            reporter.finish()
        return pa.Table.from_batches(batches, schema=reader.schema)

    def to_pandas(self, progress=None, **kwargs):
        """A pandas.DataFrame of every row: through pyarrow when it is
        installed (kwargs go to pyarrow's to_pandas), else built in bulk
        with numpy from floe's buffers (see floe._frame for the types and
        the options date_as_object, dtype_backend and decimal_as_float,
        which both ways take). progress: a callable told the read's
        floe.Progress (files, bytes, rows done of the totals) after each
        batch, or True for a status line on stderr when it is a terminal."""
        reporter = _progress.reporter(progress)
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            from . import _frame

            return _frame.to_pandas(self._batches(reporter, self._frame_batch_rows(kwargs)), self._schema_fields,
                                    _arrow.Decoder(self._iceberg_types()), **kwargs)
        from . import _frame_pyarrow

        return _frame_pyarrow.to_pandas(self.to_arrow(progress=reporter), **kwargs)

    def to_polars(self):
        """A polars.DataFrame of every row, through the Arrow PyCapsule
        interface (no pyarrow needed with polars 1.x)."""
        import polars as pl

        try:
            return pl.DataFrame(self)
        except TypeError:  # an older polars without the PyCapsule interface
            return pl.from_arrow(self.to_arrow())

    def to_duckdb(self, table_name, connection=None):
        """Registers every row as DuckDB view table_name on connection (a
        new in-memory one by default) and returns the connection, as
        pyiceberg does."""
        import duckdb

        con = connection or duckdb.connect(database=":memory:")
        con.register(table_name, self.to_arrow())
        return con

    def _frame_batch_rows(self, options):
        """The batch size for to_pandas's stream (None: the reader's own;
        see Scan)."""
        return None

    def _schema_fields(self):
        stream = ArrowArrayStream()
        self._open_stream(ctypes.addressof(stream))
        try:
            return _stream_schema(stream).children
        finally:
            stream.release(ctypes.byref(stream))


class DataFile:
    """A data file a scan reads, with pyiceberg's attribute names."""

    def __init__(self, task):
        self.file_path = task.get("path")
        self.record_count = task.get("record_count")
        self.file_size_in_bytes = task.get("file_size")
        self.file_format = "PARQUET"

    def __repr__(self):
        return f"DataFile(file_path={self.file_path!r}, record_count={self.record_count})"


class FileScanTask:
    """One file, or a byte range of it, as pyiceberg's FileScanTask."""

    def __init__(self, task):
        self._task = task
        self.file = DataFile(task)
        self.start = task.get("start", 0)
        self.length = task.get("length", 0)
        self.delete_files = list(task.get("deletes") or [])

    def __repr__(self):
        return f"FileScanTask({self.file.file_path!r}, start={self.start}, length={self.length})"


def _stream_schema(stream):
    """The stream's schema as a Field (the C schema released)."""
    schema = ArrowSchema()
    rc = stream.get_schema(ctypes.byref(stream), ctypes.byref(schema))
    if rc != 0:
        raise _stream_error(stream, rc)
    try:
        return _arrow.parse_schema(schema)
    finally:
        schema.release(ctypes.byref(schema))


def _stream_error(stream, errno_value):
    ptr = stream.get_last_error(ctypes.byref(stream))
    msg = ctypes.string_at(ptr).decode("utf-8", "replace") if ptr else ""
    code = {2: Status.NOT_FOUND, 22: Status.INVALID_ARGUMENT, 38: Status.UNSUPPORTED,
            125: Status.CANCELLED, 110: Status.TIMEOUT}.get(errno_value, Status.IO)
    return FloeError(code, f"{msg} (errno {errno_value})")


class Scan(_Handle, _Readable, ScanFluent):
    """A planned scan: its schema, its tasks, and its rows; pyiceberg's
    builder methods (select, filter, use_ref, …) each return a new scan."""

    _free_name = "floe_scan_free"

    def __init__(self, handle, table, read_options=None, options=None):
        _Handle.__init__(self, handle)
        self._table = table
        # What it was opened with, for ScanFluent's new scans: the options,
        # the filters added since, and the metadata it was planned on.
        self._opts, self._added, self._scan_metadata = dict(options or {}), [], table.metadata
        self._types = None
        # The scan's read settings (limit, batch_size, verify_crc): a task
        # does not carry them, so each task's options do, and a task reads
        # as the scan would wherever it goes.
        self._read_options = dict(read_options or {})

    def _open_stream(self, address, batch_rows=None):
        if batch_rows:
            _check(library().floe_scan_stream_options(self._handle, _json_arg({"batch_size": batch_rows}), address))
        else:
            _check(library().floe_scan_stream(self._handle, address))

    def _progress_sampler(self):
        # The scan's metrics sum every read of it: this read's work done is
        # what they gained since it began; the plan is the scan's.
        try:
            base = self.metrics()
        except FloeError:  # a changelog scan keeps no metrics: rows only
            return _Readable._progress_sampler(self)
        noun = "splits" if base.get("tasks_planned") != base.get("files_planned") else "files"

        def sample(rows):
            m = self.metrics()
            return _progress.Progress("scan", m["tasks_done"] - base["tasks_done"], m["tasks_planned"] or None,
                                      m["task_bytes_done"] - base["task_bytes_done"],
                                      m["task_bytes_planned"] or None, rows, None, noun)

        return sample

    def cancel(self):
        """Stops every read of this scan, running (in any thread) or to
        come: they raise FloeError CANCELLED, their workers and requests
        stopped. Safe to call from another thread while one reads."""
        _check(library().floe_scan_cancel(self._handle))

    def _iceberg_types(self):
        if self._types is None:
            md = self._table.metadata
            types = {}
            for schema in md.get("schemas", []) + ([md["schema"]] if "schema" in md else []):
                types.update(_arrow.iceberg_types(schema))
            self._types = types
        return self._types

    def __arrow_c_schema__(self):
        """The Arrow PyCapsule Interface: the scan's schema as an
        "arrow_schema" capsule."""
        lib = library()
        ptr = lib.floe_arrow_schema_new()
        if not ptr:
            raise MemoryError("cannot allocate an ArrowSchema")
        capsule = _py_capsule_new(ptr, lib.floe_capsule_schema_name(),
                                  ctypes.cast(lib.floe_capsule_release_schema, ctypes.c_void_p).value)
        _check(lib.floe_scan_schema(self._handle, ptr))
        return capsule

    def _frame_batch_rows(self, options):
        # A frame of numbers only (views of floe's buffers, no object to
        # make while floe decodes the next batch) is read in batches of up
        # to _VIEW_BATCH_BYTES: one batch is floe's buffers as they are,
        # where 64 Ki-row batches were each copied into the columns (four
        # long columns of 1 M rows: 1.06x the Arrow scan against 1.35x).
        # Not where the caller chose a batch size or a memory limit, or
        # for a changelog.
        chosen = ("batch_size", "memory_limit", "changelog")
        if any(k in self._opts for k in chosen) or "memory_limit" in self._table._options:
            return None
        from . import _frame

        width = _frame.view_row_bytes(self._schema_fields(), options)
        return max(1, _VIEW_BATCH_BYTES // width) if width else None

    def _schema_fields(self):
        # The schema every stream of the scan exports, without opening one
        # (a parallel stream opened only for its schema could finish tasks
        # behind a progress= read's back).
        return self.schema.children

    @property
    def schema(self):
        """The Arrow schema as a floe._arrow.Field tree (no pyarrow needed)."""
        schema = ArrowSchema()
        _check(library().floe_scan_schema(self._handle, ctypes.byref(schema)))
        try:
            return _arrow.parse_schema(schema)
        finally:
            schema.release(ctypes.byref(schema))

    def add_filter(self, expr):
        """Tightens the scan, before or while its rows are read (from another
        thread too): from then on it returns only rows matching its
        row_filter AND every added filter. expr is pyiceberg's text form
        ("a < 10 and b = 'x'") or a dict in the Iceberg REST JSON expression
        form. Reads started later apply it to every row; a read under way
        applies it to the files, row groups and pages it has not reached, and
        rows it already returned stay returned. A bad filter raises
        FloeError (INVALID_ARGUMENT) and leaves the scan as it was."""
        expr = _filter(expr, "add_filter's filter")
        # floe reads text starting with "{" as JSON: row_filter text never does.
        text = _dumps(expr) if isinstance(expr, dict) else expr
        if "\0" in text:
            raise FloeError(Status.INVALID_ARGUMENT, "filter contains a NUL character")
        _check(library().floe_scan_add_filter(self._handle, text.encode("utf-8")))
        self._added.append(expr)

    def metrics(self):
        """What the scan has pruned and read so far, summed over all its
        reads, as a dict of int counters: manifests_skipped, files_skipped,
        files_planned, row_groups_read, row_groups_skipped, pages_skipped,
        bytes_read, bytes_skipped, rows_filtered, rows_deleted,
        rows_returned (include/floe.h says what each counts; more may be
        added). Safe to call while the scan is being read."""
        out = ctypes.c_void_p()
        _check(library().floe_scan_metrics(self._handle, ctypes.byref(out)))
        return json.loads(_take_string(out))

    def count(self):
        """The number of rows, deletes, filter and limit applied: from the
        manifests' record counts when no file has deletes or a filter left
        to apply (no data file is opened), else by reading."""
        rows = ctypes.c_int64()
        _check(library().floe_scan_count(self._handle, ctypes.byref(rows)))
        return rows.value

    def plan_files(self):
        """The files and byte ranges the scan reads, as pyiceberg's
        FileScanTasks: file (file_path, record_count, file_format), start,
        length and delete_files. Tasks to hand to workers are plan_tasks()."""
        return [FileScanTask(ft) for task in self.plan_tasks() for ft in task.file_tasks]

    def plan_tasks(self):
        """The scan's tasks, each readable on its own, here or (pickled, or
        as to_bytes()) in another process: a task is one data file, a byte
        range of a file larger than the split size, or several small files
        (see Task). Reading them all, in order, reads the scan."""
        lib = library()
        count = ctypes.c_int64()
        _check(lib.floe_scan_plan(self._handle, ctypes.byref(count)))
        tasks = []
        for i in range(count.value):
            ptr, size = ctypes.c_void_p(), ctypes.c_size_t()
            _check(lib.floe_scan_task(self._handle, i, ctypes.byref(ptr), ctypes.byref(size)))
            try:
                data = ctypes.string_at(ptr.value, size.value)
            finally:
                lib.floe_bytes_free(ptr)
            tasks.append(Task(data, dict(_task_options(self._table._options), **self._read_options)))
        return tasks

    def __repr__(self):
        return f"<floe.Scan of {self._table!r}>"


# The read settings of a task's options (floe_task_stream's and
# floe_task_io_open's "limit", "batch_size", "verify_crc").
_READ_KEYS = ("limit", "batch_size", "verify_crc")

# The most bytes of columns a batch of a numbers-only frame holds (see
# Scan._frame_batch_rows).
_VIEW_BATCH_BYTES = 64 << 20


def _task_options(table_options):
    # A task carries the file paths already mapped; the map is still needed
    # to match paths that delete files spell the old way.
    return {k: v for k, v in table_options.items() if k in ("location_map", "properties", "s3", "azure", "gcs")}


class Task(_Readable):
    """One unit of a scan, serialisable: a data file, a byte range of one
    (the row groups whose middle lies in the range), or several small
    files, each with its deletes, read one after another."""

    def __init__(self, data, options=None):
        self._data = bytes(data)
        self._options = dict(options or {})
        self._info = None

    @classmethod
    def from_bytes(cls, data, location_map=None, **options):
        """A task from to_bytes(). location_map (and properties) say how to
        reach the files from this process; limit, batch_size and verify_crc
        how to read it (a task does not carry them: pass the scan's limit
        to read it as the scan would)."""
        opts = dict(options)
        if location_map:
            opts["location_map"] = dict(location_map)
        return cls(data, opts)

    def to_bytes(self):
        """The serialised task (floe_scan_task's bytes)."""
        return self._data

    def __reduce__(self):
        return (Task, (self._data, self._options))

    @property
    def info(self):
        """The decoded task as a dict: {"group_version": ..., "tasks": [...]}
        with one entry per file or byte range (path, start, length,
        record_count, deletes...)."""
        if self._info is None:
            self._info = json.loads(self._data)
        return self._info

    @property
    def file_tasks(self):
        """The files and byte ranges the task reads, in order, as dicts
        (length 0 means the whole file). A changelog's task (a change
        group: "items") reads each item's file."""
        info = self.info
        if "items" in info:
            return [item["task"] for item in info["items"]]
        return info["tasks"] if "group_version" in info else [info]

    @property
    def file_paths(self):
        """The data files the task reads, in order, each once."""
        return list(dict.fromkeys(t.get("path") for t in self.file_tasks))

    @property
    def file_path(self):
        """The data file, when the task reads (part of) one file; else None."""
        paths = self.file_paths
        return paths[0] if len(paths) == 1 else None

    @property
    def record_count(self):
        """Rows in the task's files before deletes, when it reads whole
        files; None when it reads a byte range (the rows of a range are
        known only from the file's footer)."""
        if any(t.get("length") for t in self.file_tasks):
            return None
        return sum(t.get("record_count", 0) for t in self.file_tasks)

    def _open_stream(self, address):
        _check(library().floe_task_stream(self._data, len(self._data), _json_arg(self._options), address))

    def host_io(self):
        """A read of this task whose bytes the caller fetches itself (an
        engine with its own I/O layer or cache): see HostIO."""
        return HostIO(self)

    def _iceberg_types(self):
        tasks = self.file_tasks
        return _arrow.iceberg_types(tasks[0].get("schema")) if tasks else {}

    def __eq__(self, other):
        return isinstance(other, Task) and other._data == self._data and other._options == self._options

    def __hash__(self):
        return hash(self._data)

    def __repr__(self):
        tasks = self.file_tasks
        if len(tasks) == 1:
            t = tasks[0]
            where = f" [{t.get('start', 0)}, +{t['length']})" if t.get("length") else ""
            return f"<floe.Task {t.get('path')}{where}>"
        return f"<floe.Task of {len(tasks)} file ranges>"


class HostIO(_Handle, _Readable):
    """A task read driven by the caller's I/O. Loop: needed() lists
    (path, offset, length) ranges of the task's files; fetch each and hand
    it in with fill(path, offset, data); repeat until needed() is empty.
    Then read it like a task (to_arrow_batch_reader(), __arrow_c_stream__,
    ...): it decodes from the filled bytes alone and reads no file itself.
    A read before every range is filled raises FloeError."""

    def __init__(self, task):
        handle = ctypes.c_void_p()
        read = {k: v for k, v in task._options.items() if k in _READ_KEYS}
        _check(library().floe_task_io_open(task._data, len(task._data), _json_arg(read), ctypes.byref(handle)))
        super().__init__(handle.value)
        self._task = task

    _free_name = "floe_task_io_free"

    def needed(self):
        ranges, count = ctypes.POINTER(_ByteRange)(), ctypes.c_size_t()
        _check(library().floe_task_needed_ranges(self._handle, ctypes.byref(ranges), ctypes.byref(count)))
        return [(ranges[i].path.decode("utf-8"), ranges[i].offset, ranges[i].length) for i in range(count.value)]

    def fill(self, path, offset, data):
        data = bytes(data)
        _check(library().floe_task_fill(self._handle, _c_str(str(path), "path"), int(offset), data, len(data)))

    def _open_stream(self, address):
        _check(library().floe_task_io_stream(self._handle, address))

    def _iceberg_types(self):
        return self._task._iceberg_types()


class _ByteRange(ctypes.Structure):
    _fields_ = [("path", ctypes.c_char_p), ("offset", ctypes.c_int64), ("length", ctypes.c_int64)]
