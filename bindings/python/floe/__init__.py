"""floe: read Apache Iceberg tables as Arrow data, through libfloe's C API
(ctypes only: no compiled extension, no required dependency).

    import floe
    t = floe.Table.open("warehouse/db/events", location_map={"s3://old/events": "warehouse/db/events"})
    t.metadata["format-version"]
    scan = t.scan(selected_fields=["id", "payload.kind"], limit=100)
    rows = scan.to_pylist()          # Python values, no pyarrow needed
    table = scan.to_arrow()          # with pyarrow
    reader = pa.RecordBatchReader.from_stream(scan)   # Arrow PyCapsule Interface
    scan.add_filter("id < 1000")     # tighten it, also while it is being read
    scan.metrics()                   # what it pruned and read, as a dict

    cat = floe.load_catalog("local", uri="sqlite:///tmp/catalog.db")   # pyiceberg's names
    cat.create_namespace("db"); t = cat.create_table("db.events", schema)

libfloe.so is found through $FLOE_LIBRARY, else the one an installed
package holds (pip install bindings/python), else build/libfloe.so in the
repository this package sits in, else the system library path.

libfloe runs the Go runtime: do not use it in a process forked from one that
had loaded it (multiprocessing: use the "spawn" or "forkserver" start
method). Tasks pickle, so they can be read in worker processes.
"""

from ._arrow import Field
from ._catalog import Catalog, load_catalog
from ._errors import FloeError, Status
from ._lib import library
from ._table import HostIO, Scan, Table, Task
from ._inspect import InspectResult, InspectTable, InspectTask
from ._maintenance import MaintenanceTable
from ._progress import Progress
from ._version import __version__
from ._write import UpsertResult


def version():
    """The version of the loaded libfloe."""
    return library().floe_version().decode("ascii")


def runtime_stats():
    """What libfloe holds now (floe_runtime_stats): goroutines, live
    handles and exported batches, Go heap and export-buffer bytes. A
    process that runs for hours can watch these stay flat."""
    import ctypes
    import json

    from ._calls import _check, _take_string

    out = ctypes.c_void_p()
    _check(library().floe_runtime_stats(ctypes.byref(out)))
    return json.loads(_take_string(out))


__all__ = ["__version__", "Catalog", "Field", "FloeError", "HostIO", "InspectResult", "InspectTable", "InspectTask", "MaintenanceTable", "Progress", "Scan", "Status", "Table", "Task", "UpsertResult", "load_catalog", "runtime_stats", "version"]
