"""A table's metadata tables (floe_inspect), under pyiceberg's names:
``t.inspect.snapshots()``, ``t.inspect.files(snapshot_id=…)``, …"""

import ctypes
import json
import threading

from ._calls import _c_str, _check, _json_arg, _take_string
from ._lib import ArrowArrayStream, library
from .expressions import _filter
from ._table import _Readable, _task_options

# Java's and pyiceberg's metadata tables. Those taking a snapshot (or ref)
# look at one; the others cover the whole table, and floe refuses a
# snapshot for them (FloeError INVALID_ARGUMENT), as Java does.
_KINDS = ("snapshots", "history", "metadata_log_entries", "refs", "manifests", "all_manifests", "entries",
          "all_entries", "files", "data_files", "delete_files", "all_files", "all_data_files", "all_delete_files",
          "partitions", "position_deletes")


class InspectTable:
    """The metadata tables of one Table (pyiceberg's ``table.inspect``).
    Each method returns an InspectResult: to_arrow() (with pyarrow),
    to_pandas() (pyarrow or not), to_pylist(), and the Arrow PyCapsule
    stream interface. A table floe does not have yet raises FloeError
    (INVALID_ARGUMENT) naming it, when the method is called."""

    def __init__(self, table):
        self._table = table

    def read(self, kind, snapshot_id=None, *, ref=None, row_filter=None, selected_fields=None, limit=None,
             batch_size=None, case_sensitive=True, timeout_ms=None):
        """The metadata table kind ("files", …) with scan-like options:
        snapshot_id or ref picks the snapshot (per-snapshot tables only);
        row_filter is pyiceberg's text form ("record_count > 1000 and
        partition.x = 3") or a REST JSON dict over the metadata table's
        columns; selected_fields are top-level columns (None or ("*",):
        all); limit bounds the rows; timeout_ms bounds the read."""
        opts = {}
        if row_filter is not None:
            opts["filter"] = _filter(row_filter)
        if selected_fields is not None and tuple(selected_fields) != ("*",):
            opts["columns"] = list(selected_fields)
        for key, value in (("snapshot_id", snapshot_id), ("ref", ref), ("limit", limit),
                           ("batch_size", batch_size), ("timeout_ms", timeout_ms)):
            if value is not None:
                opts[key] = value
        if not case_sensitive:
            opts["case_insensitive"] = True
        return InspectResult(self._table, kind, opts)

    def __repr__(self):
        return f"<floe.InspectTable of {self._table!r}>"


def _method(kind):
    def read(self, snapshot_id=None, **options):
        return self.read(kind, snapshot_id, **options)

    read.__name__ = kind
    read.__qualname__ = f"InspectTable.{kind}"
    read.__doc__ = (f"The {kind} metadata table (Java's and pyiceberg's columns) as an InspectResult; "
                    "options as InspectTable.read.")
    return read


for _kind in _KINDS:
    setattr(InspectTable, _kind, _method(_kind))


class InspectResult(_Readable):
    """One metadata table's rows. The first read is opened when the
    result is made (so that a bad kind or option raises at once); each read
    after it opens a new one, of the same table version."""

    def __init__(self, table, kind, options):
        self._table = table
        self._kind = _c_str(str(kind), "metadata table")
        self._option_dict = dict(options)
        self._options = _json_arg(options)
        self._lock = threading.Lock()
        self._first = ArrowArrayStream()
        self._open_into(ctypes.addressof(self._first))

    def _open_into(self, address):
        _check(library().floe_inspect(self._table._handle, self._kind, self._options, address))

    def _open_stream(self, address):
        with self._lock:
            first, self._first = self._first, None
        if first is not None and first.release:
            # The stream moves: its structure is copied and the original
            # marked released, as the C stream interface allows.
            ctypes.memmove(address, ctypes.addressof(first), ctypes.sizeof(ArrowArrayStream))
            first.release = type(first.release)()
            return
        self._open_into(address)

    def __del__(self):
        first = getattr(self, "_first", None)
        if first is not None and first.release:
            try:
                first.release(ctypes.byref(first))
            except Exception:  # at interpreter exit
                pass

    def plan_tasks(self, task_size=None):
        """The metadata table as tasks to read in parallel, here or
        (pickled, or as to_bytes()) in another process: each reads some of
        the manifests this result reads, about task_size bytes of them
        (default 8 MiB). Reading them all, in order, gives this result's
        rows; a limit bounds each task. Only the tables of manifest
        entries (files, data_files, delete_files, entries and their all_*
        forms) have tasks; others raise FloeError (UNSUPPORTED)."""
        opts = dict(self._option_dict)
        if task_size is not None:
            opts["task_size"] = task_size
        out = ctypes.c_void_p()
        _check(library().floe_inspect_plan(self._table._handle, self._kind, _json_arg(opts), ctypes.byref(out)))
        task_options = _task_options(self._table._options)
        return [InspectTask(json.dumps(task, separators=(",", ":")).encode("utf-8"), task_options)
                for task in json.loads(_take_string(out))]

    def __repr__(self):
        return f"<floe.InspectResult {self._kind.decode()}>"


class InspectTask(_Readable):
    """One part of a metadata table of manifest entries
    (InspectResult.plan_tasks): some of its manifests and what turns their
    entries into rows, serialisable. Read it as a result
    (to_arrow(), to_pylist(), …); it needs no table."""

    def __init__(self, data, options=None):
        self._data = bytes(data)
        self._options = dict(options or {})
        self._info = None

    @classmethod
    def from_bytes(cls, data, location_map=None, **options):
        """A task from to_bytes(). location_map (and properties) say how to
        reach the manifests from this process."""
        opts = dict(options)
        if location_map:
            opts["location_map"] = dict(location_map)
        return cls(data, opts)

    def to_bytes(self):
        """The serialised task (an element of floe_inspect_plan's array)."""
        return self._data

    def __reduce__(self):
        return (InspectTask, (self._data, self._options))

    @property
    def info(self):
        """The decoded task as a dict (kind, manifests, columns, filter, …)."""
        if self._info is None:
            self._info = json.loads(self._data)
        return self._info

    @property
    def kind(self):
        return self.info["kind"]

    @property
    def manifest_paths(self):
        """The manifests the task reads, in order."""
        return [m["manifest_path"] for m in self.info["manifests"]]

    def _open_stream(self, address):
        _check(library().floe_task_stream(self._data, len(self._data), _json_arg(self._options), address))

    def __eq__(self, other):
        return isinstance(other, InspectTask) and other._data == self._data and other._options == self._options

    def __hash__(self):
        return hash(self._data)

    def __repr__(self):
        return f"<floe.InspectTask {self.kind} of {len(self.info['manifests'])} manifests>"
