"""Name mappings with pyiceberg's names (pyiceberg.table.name_mapping):
the field ids that Parquet files written without them (add_files'
files, Hive tables) get by column name, as the table property
schema.name-mapping.default holds them. Table.name_mapping() returns one,
or None when the table has none.

    m = t.name_mapping()
    m.find("location", "lat").field_id

floe's add_files matches files without ids by name itself and does not
write the property; set it (t.transaction().set_properties) from
create_mapping_from_schema(t.schema()).model_dump_json() when another
engine needs one."""

import json
from typing import Any, Dict, Iterator, List, Optional

from ..types import _Frozen

DEFAULT_NAME_MAPPING = "schema.name-mapping.default"


class MappedField(_Frozen):
    """One field of a mapping: its id (None for a name that maps to no
    field), the names it is known by, and its nested fields."""

    def __init__(self, field_id: Optional[int] = None, names: Optional[List[str]] = None,
                 fields: Optional[List["MappedField"]] = None):
        self._set(field_id=field_id, names=list(names or []), fields=list(fields or []))

    @classmethod
    def model_validate(cls, obj: Dict[str, Any]) -> "MappedField":
        if isinstance(obj, cls):
            return obj
        return cls(obj.get("field-id"), obj.get("names"), [cls.model_validate(f) for f in obj.get("fields") or []])

    def model_dump(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {}
        if self.field_id is not None:
            out["field-id"] = self.field_id
        out["names"] = list(self.names)
        if self.fields:
            out["fields"] = [f.model_dump() for f in self.fields]
        return out

    def __eq__(self, other):
        return isinstance(other, MappedField) and other.model_dump() == self.model_dump()

    def __hash__(self):
        return hash(json.dumps(self.model_dump(), sort_keys=True))

    def __repr__(self):
        nested = f", fields={self.fields!r}" if self.fields else ""
        return f"MappedField(field_id={self.field_id}, names={self.names!r}{nested})"


class NameMapping(_Frozen):
    """A list of MappedFields (iterate it, len() it), with lookup by the
    names along a path."""

    def __init__(self, root: Optional[List[MappedField]] = None):
        self._set(root=list(root or []))

    @classmethod
    def model_validate(cls, obj: Any) -> "NameMapping":
        if isinstance(obj, cls):
            return obj
        return cls([MappedField.model_validate(f) for f in obj])

    @classmethod
    def model_validate_json(cls, text: str) -> "NameMapping":
        return cls.model_validate(json.loads(text))

    def model_dump(self) -> List[Dict[str, Any]]:
        return [f.model_dump() for f in self.root]

    def model_dump_json(self, **_kwargs) -> str:
        return json.dumps(self.model_dump(), separators=(",", ":"))

    def find(self, *names: str) -> MappedField:
        """The field at the path of names (each a name it is known by);
        ValueError when there is none, as pyiceberg's find raises."""
        fields = self.root
        found = None
        for name in names:
            found = next((f for f in fields if name in f.names), None)
            if found is None:
                raise ValueError(f"Could not find field with name: {'.'.join(names)}")
            fields = found.fields
        if found is None:
            raise ValueError("find takes at least one name")
        return found

    def __iter__(self) -> Iterator[MappedField]:
        return iter(self.root)

    def __len__(self) -> int:
        return len(self.root)

    def __eq__(self, other):
        return isinstance(other, NameMapping) and other.root == self.root

    def __hash__(self):
        return hash(tuple(self.root))

    def __repr__(self):
        return f"NameMapping({self.root!r})"


def create_mapping_from_schema(schema) -> NameMapping:
    """The mapping of a schema's own names (pyiceberg's name): every field
    by its name, list elements as "element", map keys and values as "key"
    and "value", as the Iceberg spec's default mapping is made."""
    from ..types import ListType, MapType, StructType

    def children(t):
        if isinstance(t, StructType):
            return [field(f.field_id, f.name, f.field_type) for f in t.fields]
        if isinstance(t, ListType):
            return [field(t.element_id, "element", t.element_type)]
        if isinstance(t, MapType):
            return [field(t.key_id, "key", t.key_type), field(t.value_id, "value", t.value_type)]
        return []

    def field(field_id, name, t):
        return MappedField(field_id=field_id, names=[name], fields=children(t))

    return NameMapping([field(f.field_id, f.name, f.field_type) for f in schema.fields])


def parse_mapping_from_json(mapping: str) -> NameMapping:
    """A NameMapping from the property's JSON text (pyiceberg's name)."""
    return NameMapping.model_validate_json(mapping)


__all__ = ["DEFAULT_NAME_MAPPING", "MappedField", "NameMapping", "create_mapping_from_schema", "parse_mapping_from_json"]
