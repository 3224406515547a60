"""Snapshot references with pyiceberg's names (pyiceberg.table.refs):
what Table.refs() returns, one SnapshotRef a branch or tag.

    from floe.table.refs import SnapshotRef, SnapshotRefType
    t.refs()["main"].snapshot_ref_type == SnapshotRefType.BRANCH

Read from the table metadata's "refs" (a format v1 table without them has
its current snapshot as "main", as Iceberg reads it)."""

import enum
from typing import Any, Dict, Optional

from ..types import _Frozen

MAIN_BRANCH = "main"


class SnapshotRefType(str, enum.Enum):
    """A ref's kind; also its Iceberg value as a string
    (SnapshotRefType.BRANCH == "branch")."""

    BRANCH = "branch"
    TAG = "tag"

    def __repr__(self):
        return f"SnapshotRefType.{self.name}"

    def __str__(self):
        return self.value


class SnapshotRef(_Frozen):
    """A branch or tag: the snapshot it points at and its retention
    (None where the metadata sets none: the table's defaults apply).
    Equal when every field is."""

    def __init__(self, snapshot_id: int, snapshot_ref_type: Any, min_snapshots_to_keep: Optional[int] = None,
                 max_snapshot_age_ms: Optional[int] = None, max_ref_age_ms: Optional[int] = None):
        self._set(snapshot_id=int(snapshot_id), snapshot_ref_type=SnapshotRefType(str(snapshot_ref_type)),
                  min_snapshots_to_keep=min_snapshots_to_keep, max_snapshot_age_ms=max_snapshot_age_ms,
                  max_ref_age_ms=max_ref_age_ms)

    @classmethod
    def model_validate(cls, obj: Dict[str, Any]) -> "SnapshotRef":
        """A ref from its metadata JSON ({"snapshot-id", "type", ...})."""
        if isinstance(obj, cls):
            return obj
        return cls(obj["snapshot-id"], obj["type"], obj.get("min-snapshots-to-keep"),
                   obj.get("max-snapshot-age-ms"), obj.get("max-ref-age-ms"))

    def model_dump(self) -> Dict[str, Any]:
        """The metadata JSON form, fields left unset omitted."""
        out = {"snapshot-id": self.snapshot_id, "type": self.snapshot_ref_type.value}
        for key, value in (("min-snapshots-to-keep", self.min_snapshots_to_keep),
                           ("max-snapshot-age-ms", self.max_snapshot_age_ms),
                           ("max-ref-age-ms", self.max_ref_age_ms)):
            if value is not None:
                out[key] = value
        return out

    def __eq__(self, other):
        return isinstance(other, SnapshotRef) and other.model_dump() == self.model_dump()

    def __hash__(self):
        return hash(tuple(sorted(self.model_dump().items())))

    def __repr__(self):
        extra = "".join(f", {k}={getattr(self, k)}" for k in ("min_snapshots_to_keep", "max_snapshot_age_ms",
                                                             "max_ref_age_ms") if getattr(self, k) is not None)
        return f"SnapshotRef(snapshot_id={self.snapshot_id}, snapshot_ref_type={self.snapshot_ref_type!r}{extra})"


__all__ = ["MAIN_BRANCH", "SnapshotRef", "SnapshotRefType"]
