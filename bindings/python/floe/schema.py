"""A table schema with pyiceberg's names (pyiceberg.schema.Schema):

    from floe.schema import Schema
    from floe.types import NestedField, LongType, StringType
    schema = Schema(NestedField(1, "id", LongType(), required=True),
                    NestedField(2, "name", StringType()), identifier_field_ids=[1])
    catalog.create_table("db.t", schema)

Table.schema() returns one; str() prints pyiceberg's "table { ... }".
Unlike pyiceberg, floe keeps the field ids a schema is created with (they
are in the data files written with it); give a schema all ids 0 to have
fresh ones assigned."""


from .types import ListType, MapType, NestedField, StructType, _extra, _fields, _Frozen, _JsonModel

INITIAL_SCHEMA_ID = 0


class _ColumnNames(list):
    """pyiceberg's Schema.column_names is a property; floe's was a method.
    This list answers both spellings: schema.column_names and
    schema.column_names()."""

    def __call__(self):
        return self


class Schema(_JsonModel, _Frozen):
    """A schema: its top-level fields, id and identifier field ids.
    Schema(*fields, schema_id=0, identifier_field_ids=[]); the JSON names
    ("schema-id", "identifier-field-ids") are taken too."""

    def __init__(self, *fields, **data):
        data.pop("type", None)
        if len(fields) == 1 and isinstance(fields[0], (list, tuple)):
            fields = tuple(fields[0])
        schema_id = data.pop("schema-id", data.pop("schema_id", INITIAL_SCHEMA_ID))
        ids = data.pop("identifier-field-ids", data.pop("identifier_field_ids", None))
        fields = _fields(fields or data.pop("fields", ()))
        _extra("Schema", data)
        self._set(fields=fields, schema_id=int(schema_id), identifier_field_ids=[int(i) for i in ids or []])

    def model_dump(self, **_kwargs):
        return {"type": "struct", "fields": [f.model_dump() for f in self.fields], "schema-id": self.schema_id,
                "identifier-field-ids": list(self.identifier_field_ids)}

    _floe_json = True

    @property
    def columns(self):
        return self.fields

    def as_struct(self):
        return StructType(*self.fields)

    def __len__(self):
        return len(self.fields)

    def __eq__(self, other):
        # As pyiceberg: the columns and identifier fields, not the schema id.
        return (isinstance(other, Schema) and self.fields == other.fields
                and self.identifier_field_ids == other.identifier_field_ids)

    def __hash__(self):
        return hash((self.fields, tuple(self.identifier_field_ids)))

    def __str__(self):
        return "table {\n" + "\n".join("  " + str(f) for f in self.fields) + "\n}"

    def __repr__(self):
        columns = ", ".join(repr(f) for f in self.fields)
        return f"Schema({columns}, schema_id={self.schema_id}, identifier_field_ids={self.identifier_field_ids})"

    def _walk(self):
        """(dotted path, field) of every field, nested ones too, parents
        first; list elements and map keys and values as pyiceberg names
        them (element, key, value)."""

        def walk(prefix, fields):
            for f in fields:
                path = prefix + f.name
                yield path, f
                yield from walk_type(path + ".", f.field_type)

        def walk_type(prefix, t):
            if isinstance(t, StructType):
                yield from walk(prefix, t.fields)
            elif isinstance(t, ListType):
                yield from walk(prefix, (t.element_field,))
            elif isinstance(t, MapType):
                yield from walk(prefix, (t.key_field, t.value_field))

        yield from walk("", self.fields)

    def _names_by_id(self):
        """Full names by field id in pyiceberg's order (children before
        their parent)."""
        out = {}

        def visit(prefix, fields):
            for f in fields:
                path = prefix + f.name
                visit_type(path + ".", f.field_type)
                out[f.field_id] = path

        def visit_type(prefix, t):
            if isinstance(t, StructType):
                visit(prefix, t.fields)
            elif isinstance(t, ListType):
                visit_type(prefix + "element.", t.element_type)
                out[t.element_id] = prefix + "element"
            elif isinstance(t, MapType):
                visit_type(prefix + "key.", t.key_type)
                visit_type(prefix + "value.", t.value_type)
                out[t.key_id] = prefix + "key"
                out[t.value_id] = prefix + "value"

        visit("", self.fields)
        return out

    @property
    def column_names(self):
        """Every column's full name, nested ones included ("point.x"),
        as pyiceberg lists them. Also callable: schema.column_names()."""
        return _ColumnNames(self._names_by_id().values())

    @property
    def name_mapping(self):
        """The schema's own names as a floe.table.name_mapping.NameMapping
        (pyiceberg's Schema.name_mapping)."""
        from .table.name_mapping import create_mapping_from_schema

        return create_mapping_from_schema(self)

    def find_column_name(self, column_id):
        return self._names_by_id().get(column_id)

    def find_field(self, name_or_id, case_sensitive=True):
        """The field of a dotted name ("payload.kind") or of a field id,
        nested fields included; ValueError when there is none."""
        if isinstance(name_or_id, int):
            for _, f in self._walk():
                if f.field_id == name_or_id:
                    return f
            raise ValueError(f"Could not find field with id: {name_or_id}")
        want = name_or_id if case_sensitive else str(name_or_id).lower()
        for path, f in self._walk():
            if (path if case_sensitive else path.lower()) == want:
                return f
        raise ValueError(f"Could not find field with name {name_or_id}, case_sensitive={case_sensitive}")

    def find_type(self, name_or_id, case_sensitive=True):
        return self.find_field(name_or_id, case_sensitive).field_type

    @property
    def highest_field_id(self):
        return max((f.field_id for _, f in self._walk()), default=0)

    @property
    def field_ids(self):
        return {f.field_id for _, f in self._walk()}

    def identifier_field_names(self):
        names = set()
        for field_id in self.identifier_field_ids:
            name = self.find_column_name(field_id)
            if name is None:
                raise ValueError(f"Could not find identifier column id: {field_id}")
            names.add(name)
        return names

    def select(self, *names, case_sensitive=True):
        """The schema of just the named top-level columns (nested names
        select their top-level column whole)."""
        keep = []
        for name in names:
            top = self.find_field(name.split(".")[0], case_sensitive)
            if top not in keep:
                keep.append(top)
        order = [f for f in self.fields if f in keep]
        ids = [i for i in self.identifier_field_ids if any(i == f.field_id for f in order)]
        return Schema(*order, schema_id=self.schema_id, identifier_field_ids=ids)

    def check_format_version_compatibility(self, format_version):
        for _, f in self._walk():
            if format_version < f.field_type.minimum_format_version():
                raise ValueError(f"{f.field_type} is only supported in {f.field_type.minimum_format_version()} or "
                                 f"higher. Current format version is: {format_version}")


__all__ = ["INITIAL_SCHEMA_ID", "Schema"]
