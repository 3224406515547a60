"""pyiceberg's accessors of a table's metadata (Table.schema(),
snapshots(), history(), ...), as objects from _metadata.py. Version 1
metadata without the lists (a single "schema" or "partition-spec") is read
too."""

from typing import Dict, List, Optional, Tuple

from ._metadata import PartitionSpec, Schema, Snapshot, SnapshotLogEntry, SortOrder
from .table.name_mapping import DEFAULT_NAME_MAPPING, NameMapping, parse_mapping_from_json
from .table.refs import MAIN_BRANCH, SnapshotRef, SnapshotRefType


class TableInfo:
    """Mixed into Table: everything here reads self.metadata."""

    metadata: dict
    metadata_location: str
    # A catalog's table: its identifier tuple (set by floe.Catalog). A
    # table opened by location has none: name() answers as pyiceberg's
    # StaticTable does.
    _identifier: Optional[Tuple[str, ...]] = None

    def name(self) -> Tuple[str, ...]:
        """The table's identifier: (namespace..., table) for a table a
        catalog loaded or created; for one opened or created by location
        ("static-table", its metadata file), as pyiceberg names a
        StaticTable."""
        if self._identifier is not None:
            return self._identifier
        return ("static-table", self.metadata_location)

    def refs(self) -> Dict[str, SnapshotRef]:
        """The table's branches and tags by name, as
        floe.table.refs.SnapshotRef (snapshot_id, snapshot_ref_type,
        min_snapshots_to_keep, max_snapshot_age_ms, max_ref_age_ms). A
        table with a current snapshot and no "refs" in its metadata
        (format v1 written without them) has "main" pointing at it."""
        md = self.metadata
        refs = {name: SnapshotRef.model_validate(j) for name, j in (md.get("refs") or {}).items()}
        current = md.get("current-snapshot-id")
        if "refs" not in md and current is not None and current != -1:
            refs[MAIN_BRANCH] = SnapshotRef(current, SnapshotRefType.BRANCH)
        return refs

    @property
    def last_sequence_number(self) -> int:
        """The highest data sequence number the table has assigned (0 for
        a format v1 table, which has none)."""
        return self.metadata.get("last-sequence-number", 0)

    def snapshot_as_of_timestamp(self, timestamp_ms: int, inclusive: bool = True) -> Optional[Snapshot]:
        """The snapshot that was current at timestamp_ms (ms since the
        epoch), by the snapshot log: the newest entry at or before it
        (before it with inclusive=False); None when the log has none, as
        pyiceberg answers. The snapshot may since have been expired: then
        None too."""
        for entry in reversed(self.history()):
            if entry.timestamp_ms < timestamp_ms or (inclusive and entry.timestamp_ms == timestamp_ms):
                return self.snapshot_by_id(entry.snapshot_id)
        return None

    def name_mapping(self) -> Optional[NameMapping]:
        """The table's name mapping (property schema.name-mapping.default)
        as a floe.table.name_mapping.NameMapping, or None when it has
        none."""
        text = self.properties.get(DEFAULT_NAME_MAPPING)
        return None if text is None else parse_mapping_from_json(text)

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
