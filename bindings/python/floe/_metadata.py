"""Table metadata as objects with pyiceberg's attribute names, read from the
metadata JSON libfloe returns (no pyiceberg needed): snapshots and the
snapshot log here; schemas, types, partition specs and sort orders are the
public classes of floe.schema, floe.types, floe.partitioning and
floe.table.sorting (named here too, for code that imported them from this
module). Snapshots are plain values: equal when their JSON is."""

from typing import Any, Dict, Optional

from .partitioning import PartitionField, PartitionSpec  # noqa: F401
from .schema import Schema  # noqa: F401
from .table.sorting import SortField, SortOrder  # noqa: F401
from .types import ListType, MapType, NestedField, StructType, parse_type as field_type  # noqa: F401


class _Value:
    """Equality and hashing by the JSON an object was read from."""

    _json: Any

    def __eq__(self, other):
        return type(other) is type(self) and other._json == self._json

    def __hash__(self):
        return hash(repr(self._json))


class Summary(dict):
    """A snapshot's summary: its properties, and the operation apart as
    pyiceberg keeps it."""

    @property
    def operation(self) -> Optional[str]:
        return self.get("operation")


class Snapshot(_Value):
    def __init__(self, json: Dict[str, Any]):
        self._json = json
        self.snapshot_id: int = json["snapshot-id"]
        self.parent_snapshot_id: Optional[int] = json.get("parent-snapshot-id")
        self.sequence_number: int = json.get("sequence-number", 0)
        self.timestamp_ms: int = json["timestamp-ms"]
        self.manifest_list: Optional[str] = json.get("manifest-list")
        self.summary = Summary(json.get("summary", {}))
        self.schema_id: Optional[int] = json.get("schema-id")
        self.first_row_id: Optional[int] = json.get("first-row-id")
        self.added_rows: Optional[int] = json.get("added-rows")

    def __repr__(self):
        return f"Snapshot(snapshot_id={self.snapshot_id}, operation={self.summary.operation})"


class SnapshotLogEntry(_Value):
    def __init__(self, json: Dict[str, Any]):
        self._json = json
        self.snapshot_id: int = json["snapshot-id"]
        self.timestamp_ms: int = json["timestamp-ms"]

    def __repr__(self):
        return f"SnapshotLogEntry(snapshot_id={self.snapshot_id}, timestamp_ms={self.timestamp_ms})"
