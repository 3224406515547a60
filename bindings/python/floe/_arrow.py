"""Decoding Arrow C Data Interface structures into Python values, with
ctypes alone (no pyarrow).

Types map as follows (the types floe emits, and a few more):

=========================  ===============================================
Arrow                      Python
=========================  ===============================================
null                       None
bool, int*, uint*          bool, int
float32, float64           float
decimal128(p, s)           decimal.Decimal (exact)
date32, date64             datetime.date
time32/64                  datetime.time
timestamp without zone     naive datetime.datetime
timestamp with zone        aware datetime.datetime in UTC
                           (nanoseconds are truncated toward the past to
                           microseconds; a value outside datetime's range of
                           years 1-9999 is returned as the raw integer)
utf8 / large_utf8          str
binary / large_binary      bytes
fixed_size_binary(16) of   uuid.UUID
  an Iceberg uuid column   (the Iceberg type is looked up by field id; the
                           Arrow "arrow.uuid" extension name also counts)
other fixed_size_binary    bytes
struct                     dict
list / large_list          list
map                        list of (key, value) tuples (keys may be
                           unhashable values such as dicts, and order is kept)
arrow.parquet.variant      the variant's Python value: dict, list, str,
  (an Iceberg variant)     int, float, bool, None, Decimal, date, datetime,
                           time, bytes or uuid.UUID (see _variant)
=========================  ===============================================
"""

import ctypes
import datetime
import decimal
import struct
import uuid

from . import _variant
from ._lib import ArrowArray, ArrowSchema

FIELD_ID_KEY = "PARQUET:field_id"
EXTENSION_NAME_KEY = "ARROW:extension:name"

_EPOCH_DATE = datetime.date(1970, 1, 1)
_EPOCH = datetime.datetime(1970, 1, 1)
_EPOCH_UTC = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)

_INT_FORMATS = {"c": "b", "C": "B", "s": "h", "S": "H", "i": "i", "I": "I", "l": "q", "L": "Q", "f": "f", "g": "d"}
_WIDTH = {"b": 1, "B": 1, "h": 2, "H": 2, "i": 4, "I": 4, "q": 8, "Q": 8, "f": 4, "d": 8}
_UNITS_PER_SECOND = {"s": 1, "m": 1000, "u": 1000000, "n": 1000000000}
# scaleb rounds to its context's precision (28 digits by default): a
# decimal(38, s) value needs 38, and more never hurts.
_EXACT = decimal.Context(prec=100)


class Field:
    """One node of an Arrow schema, copied out of an ArrowSchema."""

    __slots__ = ("name", "format", "metadata", "nullable", "children")

    def __init__(self, name, fmt, metadata, nullable, children):
        self.name = name
        self.format = fmt
        self.metadata = metadata
        self.nullable = nullable
        self.children = children

    @property
    def field_id(self):
        v = self.metadata.get(FIELD_ID_KEY)
        return int(v) if v is not None else None

    def __repr__(self):
        return f"Field({self.name!r}, {self.format!r}, children={self.children!r})"


def _decode_metadata(ptr):
    if not ptr:
        return {}
    (count,) = struct.unpack("<i", ctypes.string_at(ptr, 4))
    pos = ptr + 4
    out = {}
    for _ in range(count):
        (klen,) = struct.unpack("<i", ctypes.string_at(pos, 4))
        key = ctypes.string_at(pos + 4, klen).decode("utf-8", "replace")
        pos += 4 + klen
        (vlen,) = struct.unpack("<i", ctypes.string_at(pos, 4))
        value = ctypes.string_at(pos + 4, vlen).decode("utf-8", "replace")
        pos += 4 + vlen
        out[key] = value
    return out


def parse_schema(schema):
    """Copies an ArrowSchema (a ctypes structure) into a Field tree."""
    children = [parse_schema(schema.children[i].contents) for i in range(schema.n_children)]
    if schema.dictionary:
        raise NotImplementedError("dictionary-encoded Arrow arrays are not decoded by to_pylist")
    return Field(
        (schema.name or b"").decode("utf-8"),
        schema.format.decode("utf-8"),
        _decode_metadata(schema.metadata),
        bool(schema.flags & 2),
        children,
    )


class Decoder:
    """Turns Arrow arrays into Python values. iceberg_types maps a field id
    to its Iceberg type (a string for primitives), which tells a uuid from
    other 16-byte fixed values."""

    def __init__(self, iceberg_types=None):
        self.iceberg_types = iceberg_types or {}

    def batch_rows(self, field, array):
        """The rows of a record batch (a struct array) as dicts."""
        columns = [self.values(child, array.children[i].contents) for i, child in enumerate(field.children)]
        names = [c.name for c in field.children]
        if not columns:
            return [{} for _ in range(array.length)]
        return [dict(zip(names, row)) for row in zip(*columns)]

    def values(self, field, array):
        """Every value of array as a Python list."""
        n = array.length
        valid = self._validity(array)
        values = self._decode(field, array, n)
        if valid is not None:
            values = [v if ok else None for v, ok in zip(values, valid)]
        return values

    @staticmethod
    def _validity(array):
        if array.null_count == 0 or array.n_buffers == 0 or not array.buffers[0]:
            return None
        return _bits(array.buffers[0], array.offset, array.length)

    def _decode(self, field, array, n):
        fmt = field.format
        off = array.offset
        if fmt == "n":
            return [None] * n
        if fmt == "b":
            return _bits(array.buffers[1], off, n)
        if fmt in _INT_FORMATS:
            return _fixed_width(array.buffers[1], _INT_FORMATS[fmt], off, n)
        if fmt in ("u", "U", "z", "Z"):
            raw = _variable(array, n, 8 if fmt in ("U", "Z") else 4)
            return [b.decode("utf-8") for b in raw] if fmt in ("u", "U") else raw
        if fmt.startswith("w:"):
            return self._fixed_binary(field, array, int(fmt[2:]), n)
        if fmt.startswith("d:"):
            return _decimals(array, fmt, n)
        if fmt.startswith("td"):
            if fmt == "tdD":
                return [_EPOCH_DATE + datetime.timedelta(days=d) for d in _fixed_width(array.buffers[1], "i", off, n)]
            return [_EPOCH_DATE + datetime.timedelta(milliseconds=d) for d in _fixed_width(array.buffers[1], "q", off, n)]
        if fmt.startswith("tt"):
            unit = fmt[2]
            raw = _fixed_width(array.buffers[1], "i" if unit in "sm" else "q", off, n)
            return [_time_of_day(v, unit) for v in raw]
        if fmt.startswith("ts"):
            unit, zone = fmt[2], fmt[4:]
            raw = _fixed_width(array.buffers[1], "q", off, n)
            return [_timestamp(v, unit, zone) for v in raw]
        if fmt == "+s" and self._is_variant(field):
            return self._variants(field, array, n)
        if fmt == "+s":
            columns = [self.values(child, array.children[i].contents) for i, child in enumerate(field.children)]
            names = [c.name for c in field.children]
            if not columns:
                return [{} for _ in range(n)]
            # A struct's offset applies to its children as well.
            columns = [col[off:off + n] if off else col[:n] for col in columns]
            return [dict(zip(names, row)) for row in zip(*columns)]
        if fmt in ("+l", "+L", "+m"):
            width = 8 if fmt == "+L" else 4
            offsets = _fixed_width(array.buffers[1], "q" if width == 8 else "i", off, n + 1)
            child_field = field.children[0]
            items = self.values(child_field, array.children[0].contents)
            if fmt == "+m":
                items = [(e[child_field.children[0].name], e[child_field.children[1].name]) for e in items]
            return [items[offsets[i]:offsets[i + 1]] for i in range(n)]
        if fmt.startswith("+w:"):
            size = int(fmt[3:])
            items = self.values(field.children[0], array.children[0].contents)
            return [items[(off + i) * size:(off + i + 1) * size] for i in range(n)]
        raise NotImplementedError(f"Arrow format {fmt!r} (column {field.name!r}) is not decoded by to_pylist")

    def _fixed_binary(self, field, array, width, n):
        raw = ctypes.string_at(array.buffers[1] + array.offset * width, n * width) if n else b""
        values = [raw[i * width:(i + 1) * width] for i in range(n)]
        if width == 16 and self._is_uuid(field):
            return [uuid.UUID(bytes=v) for v in values]
        return values

    def _is_variant(self, field):
        if field.metadata.get(EXTENSION_NAME_KEY) in ("arrow.parquet.variant", "parquet.variant"):
            return True
        return self.iceberg_types.get(field.field_id) == "variant"

    def _variants(self, field, array, n):
        """A variant column's values, decoded from their binary encoding (a
        struct of metadata and value binaries) into Python values."""
        names = [c.name for c in field.children]
        if "metadata" not in names or "value" not in names:
            raise NotImplementedError(f"variant column {field.name!r} is not a struct of metadata and value")
        off = array.offset
        meta_i, value_i = names.index("metadata"), names.index("value")
        metas = self.values(field.children[meta_i], array.children[meta_i].contents)[off:off + n]
        vals = self.values(field.children[value_i], array.children[value_i].contents)[off:off + n]
        valid = self._validity(array)
        out = []
        for i in range(n):
            if (valid is not None and not valid[i]) or metas[i] is None or vals[i] is None:
                out.append(None)
            else:
                out.append(_variant.decode(metas[i], vals[i]))
        return out

    def _is_uuid(self, field):
        if field.metadata.get(EXTENSION_NAME_KEY) == "arrow.uuid":
            return True
        return self.iceberg_types.get(field.field_id) == "uuid"


def _bits(ptr, offset, n):
    if n == 0:
        return []
    first, last = offset // 8, (offset + n - 1) // 8
    raw = ctypes.string_at(ptr + first, last - first + 1)
    shift = offset - first * 8
    return [bool(raw[(i + shift) >> 3] & (1 << ((i + shift) & 7))) for i in range(n)]


def _fixed_width(ptr, code, offset, n):
    if n == 0:
        return []
    width = _WIDTH[code]
    raw = ctypes.string_at(ptr + offset * width, n * width)
    return memoryview(raw).cast(code).tolist()


def _variable(array, n, offset_width):
    offsets = _fixed_width(array.buffers[1], "q" if offset_width == 8 else "i", array.offset, n + 1)
    if n == 0:
        return []
    start, end = offsets[0], offsets[-1]
    data = ctypes.string_at(array.buffers[2] + start, end - start) if end > start else b""
    return [data[offsets[i] - start:offsets[i + 1] - start] for i in range(n)]


def _decimals(array, fmt, n):
    parts = fmt[2:].split(",")
    scale = int(parts[1])
    bits = int(parts[2]) if len(parts) > 2 else 128
    width = bits // 8
    raw = ctypes.string_at(array.buffers[1] + array.offset * width, n * width) if n else b""
    out = []
    for i in range(n):
        unscaled = int.from_bytes(raw[i * width:(i + 1) * width], "little", signed=True)
        out.append(decimal.Decimal(unscaled).scaleb(-scale, _EXACT))
    return out


def _time_of_day(v, unit):
    micros = v * 1000000 // _UNITS_PER_SECOND[unit] if unit in "sm" else (v if unit == "u" else v // 1000)
    seconds, us = divmod(micros, 1000000)
    minutes, s = divmod(seconds, 60)
    h, m = divmod(minutes, 60)
    return datetime.time(h, m, s, us)


def _timestamp(v, unit, zone):
    if unit == "n":
        micros = v // 1000  # floor: toward the past, as Iceberg truncates
    else:
        micros = v * (1000000 // _UNITS_PER_SECOND[unit]) if unit in "sm" else v
    epoch = _EPOCH_UTC if zone else _EPOCH
    try:
        return epoch + datetime.timedelta(microseconds=micros)
    except OverflowError:
        return v


def iceberg_types(schema_json):
    """Field id -> Iceberg type (primitive types as their string, nested
    ones as their dict) for every field of an Iceberg schema in JSON form,
    nested fields included."""
    out = {}

    def walk(t):
        if not isinstance(t, dict):
            return
        kind = t.get("type")
        if kind == "struct":
            for f in t.get("fields", []):
                out[f["id"]] = f["type"]
                walk(f["type"])
        elif kind == "list":
            out[t["element-id"]] = t["element"]
            walk(t["element"])
        elif kind == "map":
            out[t["key-id"]] = t["key"]
            out[t["value-id"]] = t["value"]
            walk(t["key"])
            walk(t["value"])

    if schema_json:
        walk({"type": "struct", "fields": schema_json.get("fields", [])})
    return out


__all__ = ["ArrowArray", "ArrowSchema", "Decoder", "Field", "iceberg_types", "parse_schema"]
