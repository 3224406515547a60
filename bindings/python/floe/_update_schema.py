"""Schema changes with pyiceberg's UpdateSchema names, as the action list
of floe_table_transaction spells them. Types are the spec's: a name
("long", "decimal(9, 2)", "fixed[16]"), floe's StructType/ListType/MapType
or a dict in the metadata JSON form, or pyiceberg's type objects."""

import datetime
import decimal
import json
import uuid

from ._metadata import ListType, MapType, Schema, StructType
from ._transaction import _Update, _path


def _type_json(t):
    if isinstance(t, str):
        return t
    if isinstance(t, (StructType, ListType, MapType)):
        return t.model_dump()
    if isinstance(t, dict):
        return t
    if hasattr(t, "model_dump_json"):  # pyiceberg's types (pydantic)
        return json.loads(t.model_dump_json(by_alias=True))
    raise TypeError(f"a column type is a type name such as \"long\", a dict or a type object, not {type(t).__name__}")


def _schema_json(schema):
    """union_by_name's schema: floe's or pyiceberg's Schema, a dict or
    JSON text, or an Arrow schema (anything with __arrow_c_schema__: a
    pyarrow Schema, a floe Scan), turned into Iceberg's by floe."""
    if hasattr(schema, "__arrow_c_schema__") and not hasattr(schema, "model_dump_json"):
        return _arrow_schema_json(schema)
    if isinstance(schema, str):
        return json.loads(schema)
    if isinstance(schema, (Schema, StructType)):
        return dict(schema.model_dump(), type="struct")
    if isinstance(schema, dict):
        return schema
    if hasattr(schema, "model_dump_json"):
        return json.loads(schema.model_dump_json(by_alias=True))
    raise TypeError(f"union_by_name takes a Schema, a dict or JSON text, not {type(schema).__name__}")


def _arrow_schema_json(obj):
    import ctypes

    from ._calls import _check, _take_string
    from ._lib import library
    from ._write import _capsule_pointer

    capsule = obj.__arrow_c_schema__()
    out = ctypes.c_void_p()
    # floe releases the schema (the capsule then only frees its structure).
    _check(library().floe_schema_from_arrow(_capsule_pointer(capsule, b"arrow_schema"), ctypes.byref(out)))
    return json.loads(_take_string(out))


def _default_json(v):
    """A default value in the spec's single-value JSON form."""
    if isinstance(v, bool) or v is None or isinstance(v, (int, float, str)):
        return v
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, (datetime.datetime, datetime.date, datetime.time)):
        return v.isoformat()
    if isinstance(v, uuid.UUID):
        return str(v)
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v).hex()
    if isinstance(v, dict):
        return {str(k): _default_json(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_default_json(x) for x in v]
    raise TypeError(f"cannot give a {type(v).__name__} as a default")


class UpdateSchema(_Update):
    """pyiceberg's UpdateSchema. Every call returns the builder, so calls
    chain; the changes become one new schema when committed."""

    def __init__(self, transaction, autocommit, allow_incompatible_changes=False, case_sensitive=True):
        super().__init__(transaction, autocommit)
        self._allow_incompatible = bool(allow_incompatible_changes)
        self._case_sensitive = bool(case_sensitive)

    def case_sensitive(self, case_sensitive):
        self._case_sensitive = bool(case_sensitive)
        return self

    def _change(self, name, **fields):
        action = {"action": name}
        action.update({k: v for k, v in fields.items() if v is not None})
        if not self._case_sensitive:
            action["case-sensitive"] = False
        if self._allow_incompatible:
            action["allow-incompatible-changes"] = True
        return self._add(action)

    def add_column(self, path, field_type, doc=None, required=False, default_value=None, initial_default=None,
                   write_default=None):
        """Adds a column; a tuple path adds inside a struct (("point",
        "z")). default_value (pyiceberg's) is both defaults: the value
        rows written before read, and the one writers fill in (v3)."""
        if default_value is not None:
            initial_default = default_value if initial_default is None else initial_default
            write_default = default_value if write_default is None else write_default
        return self._change("add-column", path=_path(path), type=_type_json(field_type), doc=doc,
                            required=bool(required) or None,
                            **{"initial-default": _opt_default(initial_default),
                               "write-default": _opt_default(write_default)})

    def delete_column(self, path):
        return self._change("delete-column", path=_path(path))

    def rename_column(self, path_from, new_name):
        return self._change("rename-column", path=_path(path_from), **{"new-name": str(new_name)})

    def update_column(self, path, field_type=None, required=None, doc=None):
        """Changes a column's type (the spec's promotions), required-ness
        or doc."""
        if field_type is None and required is None and doc is None:
            return self
        return self._change("update-column", path=_path(path),
                            type=None if field_type is None else _type_json(field_type),
                            required=None if required is None else bool(required), doc=doc)

    def make_column_optional(self, path):
        return self._change("make-column-optional", path=_path(path))

    def require_column(self, path):
        """Makes a column required (Java's requireColumn); refused when the
        table's data may hold nulls in it."""
        return self._change("require-column", path=_path(path))

    def move_first(self, path):
        return self._change("move-column", path=_path(path), first=True)

    def move_before(self, path, before_path):
        return self._change("move-column", path=_path(path), before=_path(before_path))

    def move_after(self, path, after_name):
        return self._change("move-column", path=_path(path), after=_path(after_name))

    def union_by_name(self, new_schema):
        """Adds the columns of new_schema the table lacks, by name at every
        depth (and widens types the spec allows)."""
        return self._change("union-by-name", schema=_schema_json(new_schema))

    def set_identifier_fields(self, *fields):
        return self._change("set-identifier-fields", fields=[_path(f) for f in fields])


def _opt_default(v):
    return None if v is None else _default_json(v)
