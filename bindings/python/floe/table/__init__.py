"""pyiceberg's module path pyiceberg.table, for code that imports from it
(from floe.table import Table; from floe.table.sorting import SortOrder).
The classes are floe's own: this module only names them. They are looked
up on first use, because floe's table module itself imports
floe.table.sorting."""

_NAMES = {"Table": "Table", "DataScan": "Scan", "Scan": "Scan", "Task": "Task", "FileScanTask": "FileScanTask",
          "DataFile": "DataFile"}


def __getattr__(name):
    if name in _NAMES:
        from .. import _table

        return getattr(_table, _NAMES[name])
    if name == "Transaction":
        from .._transaction import Transaction

        return Transaction
    raise AttributeError(f"module 'floe.table' has no attribute {name!r}")


__all__ = ["DataFile", "DataScan", "FileScanTask", "Scan", "Table", "Task", "Transaction"]
