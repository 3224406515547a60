"""pyiceberg's accessors of a table's metadata (Table.schema(),
snapshots(), history(), ...), as objects from _metadata.py. Version 1
metadata without the lists (a single "schema" or "partition-spec") is read
too."""

from typing import Dict, List, Optional

from ._metadata import PartitionSpec, Schema, Snapshot, SnapshotLogEntry, SortOrder


class TableInfo:
    """Mixed into Table: everything here reads self.metadata."""

    metadata: dict

    def schemas(self) -> Dict[int, Schema]:
        md = self.metadata
        found = md.get("schemas") or ([md["schema"]] if "schema" in md else [])
        return {s.schema_id: s for s in (Schema.model_validate(j) for j in found)}

    def schema(self) -> Schema:
        """The current schema."""
        schemas = self.schemas()
        current = self.metadata.get("current-schema-id")
        if current is None and len(schemas) == 1:
            return next(iter(schemas.values()))
        return schemas[current]

    def specs(self) -> Dict[int, PartitionSpec]:
        md = self.metadata
        if md.get("partition-specs"):
            found = md["partition-specs"]
        elif "partition-spec" in md:
            found = [{"spec-id": 0, "fields": md["partition-spec"]}]
        else:
            found = [{"spec-id": 0, "fields": []}]
        return {s.spec_id: s for s in (PartitionSpec.model_validate(j) for j in found)}

    def spec(self) -> PartitionSpec:
        """The default partition spec."""
        return self.specs()[self.metadata.get("default-spec-id", 0)]

    def sort_orders(self) -> Dict[int, SortOrder]:
        found = self.metadata.get("sort-orders") or [{"order-id": 0, "fields": []}]
        return {o.order_id: o for o in (SortOrder.model_validate(j) for j in found)}

    def sort_order(self) -> SortOrder:
        """The default sort order."""
        return self.sort_orders()[self.metadata.get("default-sort-order-id", 0)]

    @property
    def properties(self) -> Dict[str, str]:
        return dict(self.metadata.get("properties") or {})

    def location(self) -> str:
        """The table's base location, as its metadata records it."""
        return self.metadata["location"]

    @property
    def format_version(self) -> int:
        return self.metadata["format-version"]

    def snapshots(self) -> List[Snapshot]:
        return [Snapshot(j) for j in self.metadata.get("snapshots") or []]

    def snapshot_by_id(self, snapshot_id: int) -> Optional[Snapshot]:
        return next((s for s in self.snapshots() if s.snapshot_id == snapshot_id), None)

    def current_snapshot(self) -> Optional[Snapshot]:
        sid = self.metadata.get("current-snapshot-id")
        if sid is None or sid == -1:
            return None
        return self.snapshot_by_id(sid)

    def snapshot_by_name(self, name: str) -> Optional[Snapshot]:
        """The snapshot a branch or tag points at."""
        ref = (self.metadata.get("refs") or {}).get(name)
        if ref is None:
            return None
        return self.snapshot_by_id(ref["snapshot-id"])

    def history(self) -> List[SnapshotLogEntry]:
        """The snapshot log: which snapshot was current from when."""
        return [SnapshotLogEntry(j) for j in self.metadata.get("snapshot-log") or []]
