"""Iceberg's data types with pyiceberg's names (pyiceberg.types), built
without pydantic:

    from floe.types import NestedField, LongType, StringType, StructType
    NestedField(1, "id", LongType(), required=True)
    NestedField(field_id=2, name="kind", field_type="string")

They print as pyiceberg prints them (str(LongType()) is "long",
repr(LongType()) is "LongType()"), compare equal when they describe the
same type, and turn into Iceberg's JSON form with model_dump() /
model_dump_json() (and back with model_validate()).

Primitive types are also their spec name as a string: LongType() ==
"long", DecimalType(9, 2) == "decimal(9, 2)". Code written against floe's
earlier string-valued field types keeps working, and a type serialises to
JSON as itself. Geometry and geography are the exception in print only:
str() gives pyiceberg's quoted form (geometry('EPSG:4326')), the string
value the spec's (geometry(EPSG:4326)), which is what the metadata holds.
"""

import json
import re

DEFAULT_GEOMETRY_CRS = "OGC:CRS84"
DEFAULT_GEOGRAPHY_CRS = "OGC:CRS84"
DEFAULT_GEOGRAPHY_ALGORITHM = "spherical"

_DECIMAL = re.compile(r"^decimal\(\s*(\d+)\s*,\s*(\d+)\s*\)$")
_FIXED = re.compile(r"^fixed\[\s*(\d+)\s*\]$")
# The spec's spelling (no quotes) and pyiceberg's (quoted) are both read.
_GEOMETRY = re.compile(r"^geometry\s*(?:\(\s*['\"]?([^'\"(),]+?)['\"]?\s*\))?$", re.IGNORECASE)
_GEOGRAPHY = re.compile(r"^geography\s*(?:\(\s*['\"]?([^'\"(),]+?)['\"]?\s*"
                        r"(?:,\s*['\"]?([^'\"(),]+?)['\"]?\s*)?\))?$", re.IGNORECASE)


def _extra(what, data):
    """Arguments a constructor did not take: Iceberg JSON keys (spelt with
    "-") it does not know are ignored, as pyiceberg ignores them, so
    metadata a newer writer extended still reads; any other name is a
    misspelt keyword."""
    unknown = sorted(k for k in data if "-" not in k)
    if unknown:
        raise TypeError(f"{what} got unexpected arguments: {', '.join(unknown)}")


class _Frozen:
    """pyiceberg's models are frozen: attributes are set once, in
    __init__, so objects can be hashed and shared."""

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is immutable: cannot set {name}")

    def _set(self, **values):
        for k, v in values.items():
            object.__setattr__(self, k, v)


class _JsonModel:
    """pydantic's model_* names over a class's Iceberg JSON form, as
    pyiceberg's models have them: a subclass gives model_dump and takes
    that form as keyword arguments."""

    @classmethod
    def model_validate(cls, obj):
        return obj if isinstance(obj, cls) else cls(**obj)

    @classmethod
    def model_validate_json(cls, text):
        return cls.model_validate(json.loads(text))

    def model_dump_json(self, **_kwargs):
        return json.dumps(self.model_dump(), separators=(",", ":"))


class IcebergType(_JsonModel):
    """The base of every type."""

    @property
    def is_primitive(self):
        return isinstance(self, PrimitiveType)

    @property
    def is_struct(self):
        return isinstance(self, StructType)

    def minimum_format_version(self):
        """The lowest table format version that can hold the type."""
        return 1

    def model_dump(self, **_kwargs):
        """The type in Iceberg's JSON form (a string or a dict)."""
        raise NotImplementedError

    @classmethod
    def model_validate(cls, obj):
        """A type (or field) from its Iceberg JSON form."""
        if cls is NestedField:
            return NestedField(**obj) if isinstance(obj, dict) else obj
        t = parse_type(obj)
        if cls is not IcebergType and not isinstance(t, cls):
            raise ValueError(f"{obj!r} is not a {cls.__name__}")
        return t


class PrimitiveType(str, IcebergType):
    """A primitive type: one instance per distinct type (pyiceberg's are
    singletons too), whose string value is the spec's name."""

    _name = ""
    _instances = {}

    def __new__(cls, *args):
        key = (cls, args)
        inst = PrimitiveType._instances.get(key)
        if inst is None:
            inst = str.__new__(cls, cls._spelling(*args))
            inst._init(*args)
            PrimitiveType._instances[key] = inst
        return inst

    @classmethod
    def _spelling(cls):
        return cls._name

    def _init(self):
        pass

    def __repr__(self):
        return f"{type(self).__name__}()"

    def __str__(self):
        return str.__str__(self)

    def __format__(self, spec):
        return format(str(self), spec)

    def __reduce__(self):
        return (type(self), self.__getnewargs__())

    def __getnewargs__(self):
        return ()

    def __copy__(self):
        return self

    def __deepcopy__(self, _memo):
        return self

    def model_dump(self, **_kwargs):
        return str.__str__(self)

    @property
    def root(self):
        """pyiceberg's RootModel value: the spec name."""
        return str.__str__(self)


def _simple(class_name, name, doc, version=1):
    cls = type(class_name, (PrimitiveType,), {"_name": name, "__doc__": doc, "__module__": __name__})
    if version > 1:
        cls.minimum_format_version = lambda self: version
    return cls


BooleanType = _simple("BooleanType", "boolean", "A boolean.")
IntegerType = _simple("IntegerType", "int", "A 32-bit signed integer (promotes to long).")
IntegerType.max, IntegerType.min = 2147483647, -2147483648
LongType = _simple("LongType", "long", "A 64-bit signed integer.")
LongType.max, LongType.min = 9223372036854775807, -9223372036854775808
FloatType = _simple("FloatType", "float", "A 32-bit IEEE 754 float (promotes to double).")
FloatType.max, FloatType.min = 3.4028235e38, -3.4028235e38
DoubleType = _simple("DoubleType", "double", "A 64-bit IEEE 754 float.")
DateType = _simple("DateType", "date", "A calendar date.")
TimeType = _simple("TimeType", "time", "A time of day, microseconds, no date or zone.")
TimestampType = _simple("TimestampType", "timestamp", "A date and time, microseconds, no zone.")
TimestamptzType = _simple("TimestamptzType", "timestamptz", "An instant, microseconds, stored as UTC.")
TimestampNanoType = _simple("TimestampNanoType", "timestamp_ns", "A date and time, nanoseconds, no zone (v3).", 3)
TimestamptzNanoType = _simple("TimestamptzNanoType", "timestamptz_ns", "An instant, nanoseconds, as UTC (v3).", 3)
StringType = _simple("StringType", "string", "UTF-8 text.")
UUIDType = _simple("UUIDType", "uuid", "A UUID.")
BinaryType = _simple("BinaryType", "binary", "Bytes of any length.")
UnknownType = _simple("UnknownType", "unknown", "A column of nulls whose type is not known yet (v3).", 3)
# pyiceberg has no variant type yet; floe names it as pyiceberg names the rest.
VariantType = _simple("VariantType", "variant", "Semi-structured values, variant-encoded (v3).", 3)


class FixedType(PrimitiveType):
    """Bytes of a fixed length: FixedType(16)."""

    def __new__(cls, length):
        return super().__new__(cls, int(length))

    @classmethod
    def _spelling(cls, length):
        return f"fixed[{int(length)}]"

    def _init(self, length):
        self.length = int(length)

    def __len__(self):
        return self.length

    def __repr__(self):
        return f"FixedType(length={self.length})"

    def __getnewargs__(self):
        return (self.length,)


class DecimalType(PrimitiveType):
    """An exact decimal: DecimalType(precision, scale), precision 1 to 38."""

    def __new__(cls, precision, scale):
        if not 1 <= int(precision) <= 38:
            raise ValueError(f"Decimal precision must be between 1 and 38 (inclusive), got: {precision}")
        return super().__new__(cls, int(precision), int(scale))

    @classmethod
    def _spelling(cls, precision, scale):
        return f"decimal({precision}, {scale})"

    def _init(self, precision, scale):
        self.precision, self.scale = precision, scale

    def __repr__(self):
        return f"DecimalType(precision={self.precision}, scale={self.scale})"

    def __getnewargs__(self):
        return (self.precision, self.scale)


class GeometryType(PrimitiveType):
    """v3 geometry in a CRS (default OGC:CRS84)."""

    def __new__(cls, crs=DEFAULT_GEOMETRY_CRS):
        return super().__new__(cls, str(crs))

    @classmethod
    def _spelling(cls, crs):
        return "geometry" if crs == DEFAULT_GEOMETRY_CRS else f"geometry({crs})"

    def _init(self, crs):
        self.crs = crs

    def minimum_format_version(self):
        return 3

    def __str__(self):
        return "geometry" if self.crs == DEFAULT_GEOMETRY_CRS else f"geometry('{self.crs}')"

    def __repr__(self):
        return "GeometryType()" if self.crs == DEFAULT_GEOMETRY_CRS else f"GeometryType(crs={self.crs!r})"

    def __getnewargs__(self):
        return (self.crs,)


class GeographyType(PrimitiveType):
    """v3 geography in a CRS with an edge algorithm (defaults OGC:CRS84,
    spherical)."""

    def __new__(cls, crs=DEFAULT_GEOGRAPHY_CRS, algorithm=DEFAULT_GEOGRAPHY_ALGORITHM):
        return super().__new__(cls, str(crs), str(algorithm).lower())

    @classmethod
    def _spelling(cls, crs, algorithm):
        if algorithm != DEFAULT_GEOGRAPHY_ALGORITHM:
            return f"geography({crs}, {algorithm})"
        return "geography" if crs == DEFAULT_GEOGRAPHY_CRS else f"geography({crs})"

    def _init(self, crs, algorithm):
        self.crs, self.algorithm = crs, algorithm

    def minimum_format_version(self):
        return 3

    def __str__(self):
        if self.algorithm != DEFAULT_GEOGRAPHY_ALGORITHM:
            return f"geography('{self.crs}', '{self.algorithm}')"
        return "geography" if self.crs == DEFAULT_GEOGRAPHY_CRS else f"geography('{self.crs}')"

    def __repr__(self):
        if self.algorithm != DEFAULT_GEOGRAPHY_ALGORITHM:
            return f"GeographyType(crs={self.crs!r}, algorithm={self.algorithm!r})"
        return "GeographyType()" if self.crs == DEFAULT_GEOGRAPHY_CRS else f"GeographyType(crs={self.crs!r})"

    def __getnewargs__(self):
        return (self.crs, self.algorithm)


_BY_NAME = {cls._name: cls for cls in (BooleanType, IntegerType, LongType, FloatType, DoubleType, DateType, TimeType,
                                       TimestampType, TimestamptzType, TimestampNanoType, TimestamptzNanoType,
                                       StringType, UUIDType, BinaryType, UnknownType, VariantType)}


def parse_type(v):
    """A type from its Iceberg JSON form: a spec name ("long",
    "decimal(9, 2)", "fixed[16]", "geometry(EPSG:4326)"), a struct, list
    or map dict, or a type already."""
    if isinstance(v, IcebergType):
        return v
    if isinstance(v, str):
        s = v.strip()
        if s in _BY_NAME:
            return _BY_NAME[s]()
        m = _DECIMAL.match(s)
        if m:
            return DecimalType(int(m.group(1)), int(m.group(2)))
        m = _FIXED.match(s)
        if m:
            return FixedType(int(m.group(1)))
        m = _GEOMETRY.match(s)
        if m:
            return GeometryType(m.group(1) or DEFAULT_GEOMETRY_CRS)
        m = _GEOGRAPHY.match(s)
        if m:
            return GeographyType(m.group(1) or DEFAULT_GEOGRAPHY_CRS, m.group(2) or DEFAULT_GEOGRAPHY_ALGORITHM)
        raise ValueError(f"Unsupported field type: '{v}'")
    if isinstance(v, dict):
        kind = v.get("type")
        if kind == "struct":
            return StructType(**v)
        if kind == "list":
            return ListType(**v)
        if kind == "map":
            return MapType(**v)
        if kind == "variant":
            return VariantType()
        raise ValueError(f"Unsupported field type: {v!r}")
    if hasattr(v, "model_dump_json"):  # pyiceberg's own types
        return parse_type(json.loads(v.model_dump_json()))
    raise TypeError(f"a type is a type object, a spec name such as \"long\" or a dict, not {type(v).__name__}")


def _default_json(field_type, v):
    """A default value in the spec's single-value JSON form."""
    if v is None:
        return None
    from ._update_schema import _default_json as to_json

    return to_json(v)


_UNSET = object()


class NestedField(_Frozen, IcebergType):
    """A struct field, list element or map key/value: its id, name, type,
    whether it is required, doc, and (v3) defaults. Constructed as
    pyiceberg's: NestedField(1, "id", LongType(), required=True) or by
    keyword, with the JSON names (id=, type=, "initial-default") too; a
    type may be given by its spec name ("long")."""

    def __init__(self, field_id=None, name=None, field_type=None, required=False, doc=None, initial_default=None,
                 write_default=None, **data):
        field_id = data.pop("id", field_id)
        field_type = data.pop("type", field_type)
        initial_default = data.pop("initial-default", initial_default)
        write_default = data.pop("write-default", write_default)
        _extra("NestedField", data)
        if field_type is None:
            raise ValueError(f"field {name!r} needs a field_type")
        self._set(field_id=int(field_id) if field_id is not None else 0, name=name,
                  field_type=parse_type(field_type), required=bool(required), doc=doc,
                  initial_default=initial_default, write_default=write_default)

    @property
    def optional(self):
        return not self.required

    def model_dump(self, **_kwargs):
        out = {"id": self.field_id, "name": self.name, "type": self.field_type.model_dump(), "required": self.required}
        if self.doc is not None:
            out["doc"] = self.doc
        if self.initial_default is not None:
            out["initial-default"] = _default_json(self.field_type, self.initial_default)
        if self.write_default is not None:
            out["write-default"] = _default_json(self.field_type, self.write_default)
        return out

    def __eq__(self, other):
        return isinstance(other, NestedField) and self.model_dump() == other.model_dump()

    def __hash__(self):
        return hash((self.field_id, self.name, self.field_type, self.required, self.doc))

    def __str__(self):
        doc = f" ({self.doc})" if self.doc else ""
        req = "required" if self.required else "optional"
        return f"{self.field_id}: {self.name}: {req} {self.field_type}{doc}"

    def __repr__(self):
        parts = [f"field_id={self.field_id}", f"name={self.name!r}", f"field_type={self.field_type!r}",
                 f"required={self.required}"]
        if self.initial_default is not None:
            parts.append(f"initial_default={self.initial_default!r}")
        if self.write_default is not None:
            parts.append(f"write_default={self.write_default!r}")
        return f"NestedField({', '.join(parts)})"


def _fields(fields):
    return tuple(f if isinstance(f, NestedField) else NestedField(**f) for f in fields)


class StructType(_Frozen, IcebergType):
    """A struct of fields: StructType(NestedField(...), ...)."""

    def __init__(self, *fields, **data):
        data.pop("type", None)
        if fields and len(fields) == 1 and isinstance(fields[0], (list, tuple)):
            fields = tuple(fields[0])
        self._set(fields=_fields(fields or data.pop("fields", ())))
        _extra("StructType", data)

    def field(self, field_id):
        return next((f for f in self.fields if f.field_id == field_id), None)

    def field_by_name(self, name, case_sensitive=True):
        if case_sensitive:
            return next((f for f in self.fields if f.name == name), None)
        return next((f for f in self.fields if f.name.lower() == name.lower()), None)

    def model_dump(self, **_kwargs):
        return {"type": "struct", "fields": [f.model_dump() for f in self.fields]}

    def __len__(self):
        return len(self.fields)

    def __eq__(self, other):
        return isinstance(other, StructType) and self.fields == other.fields

    def __hash__(self):
        return hash(self.fields)

    def __str__(self):
        return f"struct<{', '.join(map(str, self.fields))}>"

    def __repr__(self):
        return f"StructType(fields=({', '.join(map(repr, self.fields))},))"


class ListType(_Frozen, IcebergType):
    """A list: ListType(element_id, element_type, element_required=True)."""

    def __init__(self, element_id=None, element=None, element_required=True, **data):
        data.pop("type", None)
        element_id = data.pop("element-id", element_id)
        element = data.pop("element", element)
        element = data.pop("element_type", element)
        element_required = data.pop("element-required", element_required)
        _extra("ListType", data)
        self._set(element_id=int(element_id), element_type=parse_type(element),
                  element_required=bool(element_required))

    @property
    def element_field(self):
        return NestedField(self.element_id, "element", self.element_type, self.element_required)

    def model_dump(self, **_kwargs):
        return {"type": "list", "element-id": self.element_id, "element": self.element_type.model_dump(),
                "element-required": self.element_required}

    def __eq__(self, other):
        return isinstance(other, ListType) and self.element_field == other.element_field

    def __hash__(self):
        return hash((self.element_id, self.element_type, self.element_required))

    def __str__(self):
        return f"list<{self.element_type}>"

    def __repr__(self):
        return (f"ListType(type='list', element_id={self.element_id}, element_type={self.element_type!r}, "
                f"element_required={self.element_required})")


class MapType(_Frozen, IcebergType):
    """A map: MapType(key_id, key_type, value_id, value_type,
    value_required=True)."""

    def __init__(self, key_id=None, key_type=None, value_id=None, value_type=None, value_required=True, **data):
        data.pop("type", None)
        key_id = data.pop("key-id", key_id)
        key_type = data.pop("key", key_type)
        value_id = data.pop("value-id", value_id)
        value_type = data.pop("value", value_type)
        value_required = data.pop("value-required", value_required)
        _extra("MapType", data)
        self._set(key_id=int(key_id), key_type=parse_type(key_type), value_id=int(value_id),
                  value_type=parse_type(value_type), value_required=bool(value_required))

    @property
    def key_field(self):
        return NestedField(self.key_id, "key", self.key_type, True)

    @property
    def value_field(self):
        return NestedField(self.value_id, "value", self.value_type, self.value_required)

    def model_dump(self, **_kwargs):
        return {"type": "map", "key-id": self.key_id, "key": self.key_type.model_dump(), "value-id": self.value_id,
                "value": self.value_type.model_dump(), "value-required": self.value_required}

    def __eq__(self, other):
        return isinstance(other, MapType) and (self.key_field, self.value_field) == (other.key_field,
                                                                                    other.value_field)

    def __hash__(self):
        return hash((self.key_id, self.key_type, self.value_id, self.value_type, self.value_required))

    def __str__(self):
        return f"map<{self.key_type}, {self.value_type}>"

    def __repr__(self):
        return (f"MapType(type='map', key_id={self.key_id}, key_type={self.key_type!r}, value_id={self.value_id}, "
                f"value_type={self.value_type!r}, value_required={self.value_required})")


def _iceberg_json(obj, what="value"):
    """Iceberg's JSON form (a dict or a type string) of a floe object
    (type, schema, spec, sort order), a dict as it is, or pyiceberg's
    objects through their own JSON."""
    if isinstance(obj, dict):
        return obj
    if isinstance(obj, IcebergType) or hasattr(obj, "_floe_json"):
        return obj.model_dump()
    if hasattr(obj, "model_dump_json"):  # pyiceberg's (pydantic) models
        return json.loads(obj.model_dump_json())
    raise TypeError(f"{what} must be a dict or a floe (or pyiceberg) object, not {type(obj).__name__}")


__all__ = ["BinaryType", "BooleanType", "DateType", "DecimalType", "DoubleType", "FixedType", "FloatType",
           "GeographyType", "GeometryType", "IcebergType", "IntegerType", "ListType", "LongType", "MapType",
           "NestedField", "PrimitiveType", "StringType", "StructType", "TimeType", "TimestampNanoType",
           "TimestampType", "TimestamptzNanoType", "TimestamptzType", "UUIDType", "UnknownType", "VariantType",
           "parse_type"]
