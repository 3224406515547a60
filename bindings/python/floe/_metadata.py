"""Table metadata as objects with pyiceberg's attribute names, read from the
metadata JSON libfloe returns (no pyiceberg needed): schemas and their
fields and types, partition specs, sort orders, snapshots and the snapshot
log. They are plain values: equal when their JSON is."""

from typing import Any, Dict, List, Optional


class _Value:
    """Equality and hashing by the JSON an object was read from."""

    _json: Any

    def __eq__(self, other):
        return type(other) is type(self) and other._json == self._json

    def __hash__(self):
        return hash(repr(self._json))


class StructType(_Value):
    def __init__(self, json: Dict[str, Any]):
        self._json = json
        self.fields: List[NestedField] = [NestedField(f) for f in json.get("fields", [])]

    def __str__(self):
        return "struct<" + ", ".join(str(f) for f in self.fields) + ">"

    __repr__ = __str__


class ListType(_Value):
    def __init__(self, json: Dict[str, Any]):
        self._json = json
        self.element_id: int = json["element-id"]
        self.element_type = field_type(json["element"])
        self.element_required: bool = json.get("element-required", False)

    def __str__(self):
        return f"list<{self.element_type}>"

    __repr__ = __str__


class MapType(_Value):
    def __init__(self, json: Dict[str, Any]):
        self._json = json
        self.key_id: int = json["key-id"]
        self.key_type = field_type(json["key"])
        self.value_id: int = json["value-id"]
        self.value_type = field_type(json["value"])
        self.value_required: bool = json.get("value-required", False)

    def __str__(self):
        return f"map<{self.key_type}, {self.value_type}>"

    __repr__ = __str__


def field_type(json: Any):
    """A primitive type as its name in the spec ("long", "decimal(9, 2)",
    "fixed[16]"); struct, list and map types as objects."""
    if isinstance(json, str):
        return json
    kind = json.get("type")
    if kind == "struct":
        return StructType(json)
    if kind == "list":
        return ListType(json)
    if kind == "map":
        return MapType(json)
    return kind


class NestedField(_Value):
    def __init__(self, json: Dict[str, Any]):
        self._json = json
        self.field_id: int = json["id"]
        self.name: str = json["name"]
        self.field_type = field_type(json["type"])
        self.required: bool = json.get("required", False)
        self.doc: Optional[str] = json.get("doc")
        self.initial_default = json.get("initial-default")
        self.write_default = json.get("write-default")

    @property
    def optional(self) -> bool:
        return not self.required

    def __str__(self):
        req = "required" if self.required else "optional"
        return f"{self.field_id}: {self.name}: {req} {self.field_type}"

    __repr__ = __str__


class Schema(_Value):
    def __init__(self, json: Dict[str, Any]):
        self._json = json
        self.schema_id: int = json.get("schema-id", 0)
        self.fields: List[NestedField] = [NestedField(f) for f in json.get("fields", [])]
        self.identifier_field_ids: List[int] = list(json.get("identifier-field-ids", []))

    def column_names(self) -> List[str]:
        return [f.name for f in self.fields]

    def find_field(self, name_or_id, case_sensitive: bool = True) -> NestedField:
        """The field of a dotted name ("payload.kind") or of a field id,
        nested fields included, as pyiceberg's Schema.find_field."""
        for path, f in self._walk():
            if isinstance(name_or_id, int):
                if f.field_id == name_or_id:
                    return f
            elif (path == name_or_id) if case_sensitive else (path.lower() == str(name_or_id).lower()):
                return f
        raise ValueError(f"Could not find field with name or id {name_or_id}, case_sensitive={case_sensitive}")

    def _walk(self):
        def walk(prefix, fields):
            for f in fields:
                path = prefix + f.name
                yield path, f
                yield from walk_type(path + ".", f.field_type)

        def walk_type(prefix, t):
            if isinstance(t, StructType):
                yield from walk(prefix, t.fields)
            elif isinstance(t, ListType):
                element = NestedField({"id": t.element_id, "name": "element", "type": t._json["element"],
                                       "required": t.element_required})
                yield prefix + "element", element
                yield from walk_type(prefix + "element.", t.element_type)
            elif isinstance(t, MapType):
                key = NestedField({"id": t.key_id, "name": "key", "type": t._json["key"], "required": True})
                value = NestedField({"id": t.value_id, "name": "value", "type": t._json["value"],
                                     "required": t.value_required})
                yield prefix + "key", key
                yield from walk_type(prefix + "key.", t.key_type)
                yield prefix + "value", value
                yield from walk_type(prefix + "value.", t.value_type)

        yield from walk("", self.fields)

    def __str__(self):
        return "table {\n" + "\n".join("  " + str(f) for f in self.fields) + "\n}"

    __repr__ = __str__


class PartitionField(_Value):
    def __init__(self, json: Dict[str, Any]):
        self._json = json
        self.source_id: int = json["source-id"]
        self.field_id: int = json.get("field-id", 0)
        self.transform: str = json["transform"]
        self.name: str = json["name"]

    def __repr__(self):
        return f"{self.field_id}: {self.name}: {self.transform}({self.source_id})"


class PartitionSpec(_Value):
    def __init__(self, json: Dict[str, Any]):
        self._json = json
        self.spec_id: int = json.get("spec-id", 0)
        self.fields: List[PartitionField] = [PartitionField(f) for f in json.get("fields", [])]

    def is_unpartitioned(self) -> bool:
        return not self.fields

    def __repr__(self):
        return "[" + ", ".join(repr(f) for f in self.fields) + "]"


class SortField(_Value):
    def __init__(self, json: Dict[str, Any]):
        self._json = json
        self.source_id: int = json["source-id"]
        self.transform: str = json.get("transform", "identity")
        self.direction: str = json.get("direction", "asc")
        self.null_order: str = json.get("null-order", "nulls-first")

    def __repr__(self):
        return f"{self.transform}({self.source_id}) {self.direction} {self.null_order}"


class SortOrder(_Value):
    def __init__(self, json: Dict[str, Any]):
        self._json = json
        self.order_id: int = json.get("order-id", 0)
        self.fields: List[SortField] = [SortField(f) for f in json.get("fields", [])]

    def is_unsorted(self) -> bool:
        return not self.fields

    def __repr__(self):
        return "[" + ", ".join(repr(f) for f in self.fields) + "]"


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
