"""Partition specs with pyiceberg's names (pyiceberg.partitioning):

    from floe.partitioning import PartitionSpec, PartitionField
    from floe.transforms import DayTransform
    spec = PartitionSpec(PartitionField(source_id=1, field_id=1000, transform=DayTransform(), name="ts_day"))
    catalog.create_table("db.t", schema, partition_spec=spec)

Table.spec() returns one. A transform may be given by its spelling
("day", "bucket[16]"); floe also lets field_id be left out (numbered from
1000 when the table is created)."""


from .transforms import VoidTransform, _pop_source_id, parse_transform
from .types import NestedField, StructType, UnknownType, _extra, _Frozen, _JsonModel

INITIAL_PARTITION_SPEC_ID = 0
PARTITION_FIELD_ID_START = 1000


class PartitionField(_Frozen):
    """One partition field: the source column's id, the field's own id,
    the transform and the name."""

    def __init__(self, source_id=None, field_id=None, transform=None, name=None, **data):
        source_id = _pop_source_id(data, source_id)
        field_id = data.pop("field-id", field_id)
        transform = data.pop("transform", transform)
        name = data.pop("name", name)
        _extra("PartitionField", data)
        if source_id is None or transform is None or name is None:
            raise ValueError("a PartitionField needs source_id, transform and name")
        self._set(source_id=int(source_id), field_id=None if field_id is None else int(field_id),
                  transform=parse_transform(transform), name=str(name))

    def model_dump(self, **_kwargs):
        out = {"source-id": self.source_id}
        if self.field_id is not None:
            out["field-id"] = self.field_id
        out.update({"transform": str(self.transform), "name": self.name})
        return out

    def __eq__(self, other):
        return isinstance(other, PartitionField) and self.model_dump() == other.model_dump()

    def __hash__(self):
        return hash((self.source_id, self.field_id, self.transform, self.name))

    def __str__(self):
        return f"{self.field_id}: {self.name}: {self.transform}({self.source_id})"

    def __repr__(self):
        return (f"PartitionField(source_id={self.source_id}, field_id={self.field_id}, "
                f"transform={self.transform!r}, name={self.name!r})")


class PartitionSpec(_JsonModel, _Frozen):
    """A partition spec: PartitionSpec(*fields, spec_id=0)."""

    _floe_json = True

    def __init__(self, *fields, **data):
        if len(fields) == 1 and isinstance(fields[0], (list, tuple)):
            fields = tuple(fields[0])
        spec_id = data.pop("spec-id", data.pop("spec_id", INITIAL_PARTITION_SPEC_ID))
        fields = fields or data.pop("fields", ())
        _extra("PartitionSpec", data)
        self._set(spec_id=int(spec_id),
                  fields=tuple(f if isinstance(f, PartitionField) else PartitionField(**f) for f in fields))

    def model_dump(self, **_kwargs):
        return {"spec-id": self.spec_id, "fields": [f.model_dump() for f in self.fields]}

    def is_unpartitioned(self):
        return not self.fields

    @property
    def last_assigned_field_id(self):
        ids = [f.field_id for f in self.fields if f.field_id is not None]
        return max(ids) if ids else PARTITION_FIELD_ID_START - 1

    def fields_by_source_id(self, field_id):
        return [f for f in self.fields if f.source_id == field_id]

    def compatible_with(self, other):
        if self == other:
            return True
        return len(self.fields) == len(other.fields) and all(
            (a.source_id, a.transform, a.name) == (b.source_id, b.transform, b.name)
            for a, b in zip(self.fields, other.fields))

    def partition_type(self, schema):
        """The struct of the spec's partition values over schema."""
        out = []
        for f in self.fields:
            try:
                source = schema.find_field(f.source_id)
            except ValueError:
                out.append(NestedField(f.field_id, f.name, UnknownType()))
                continue
            out.append(NestedField(f.field_id, f.name, f.transform.result_type(source.field_type),
                                   required=source.required and not isinstance(f.transform, VoidTransform)))
        return StructType(*out)

    def __eq__(self, other):
        return isinstance(other, PartitionSpec) and (self.spec_id, self.fields) == (other.spec_id, other.fields)

    def __hash__(self):
        return hash((self.spec_id, self.fields))

    def __str__(self):
        if not self.fields:
            return "[]"
        return "[\n  " + "\n  ".join(str(f) for f in self.fields) + "\n]"

    def __repr__(self):
        fields = "".join(repr(f) + ", " for f in self.fields)
        return f"PartitionSpec({fields}spec_id={self.spec_id})"


UNPARTITIONED_PARTITION_SPEC = PartitionSpec(spec_id=0)

__all__ = ["INITIAL_PARTITION_SPEC_ID", "PARTITION_FIELD_ID_START", "PartitionField", "PartitionSpec",
           "UNPARTITIONED_PARTITION_SPEC"]
