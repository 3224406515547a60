"""pandas DataFrames as write input without pyarrow: each column becomes
Arrow C data built from numpy buffers (no Python loop over values), the
frame one record batch that floe_array_stream takes.

Missing values (None, NaN, pandas.NA, NaT) are nulls. Columns bind by name
in floe, as every input does; what is decided here is only how a pandas
column is spelled in Arrow, with the table's column type as a guide where
pandas has no type of its own:

=============================  =============================================
pandas column                  Arrow
=============================  =============================================
int*, uint*, Int* (masked)     that width; narrowed to an int column's 32
                               bits, or widened to a long's 64, when every
                               value fits (else ValueError naming one)
float*, Float*                 that width, NaN a null; a float64 column of
                               whole numbers (an int column with a missing
                               value) as integers for an int or long column;
                               integers as floats for a float or double
                               column when each converts exactly
bool, boolean                  bool
datetime64[ns]                 timestamp in microseconds (nanoseconds for a
                               timestamp_ns column; a value finer than the
                               column is a ValueError, never truncated);
                               midnights as date32 for a date column
datetime64[ns, tz]             the same, in UTC, with zone "UTC"
strings (object or "string")   utf8 (large_utf8 past 2 GiB)
bytes                          binary; fixed_size_binary for fixed/uuid
Decimal objects                decimal128 at a decimal column's precision and
                               scale (a value with more fractional digits
                               or more digits than the column takes is a
                               ValueError naming it, never rounded)
datetime.date objects          date32 (for a date column or a new one)
all missing                    left out for a column the table has (a null),
                               else an utf8 column of nulls (floe refuses a
                               name the table lacks, naming it)
anything else (dicts, lists,   the whole frame goes as JSON rows
time objects, ...)             (floe_json_rows_stream), as a list of dicts

So a frame Scan.to_pandas returns (Decimal and date objects included)
goes back to floe as Arrow columns, never one row at a time.
=============================  =============================================

The index is not written. Memory: the Arrow structures point into numpy
arrays kept in the caller's keep list, alive until the floe call that
consumes the stream has returned; their release callbacks only mark them
released.
"""

import ctypes
import datetime
import decimal
from operator import methodcaller

import numpy as np
import pandas as pd

from ._lib import ArrowArray, ArrowSchema

_SchemaRelease = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowSchema))
_ArrayRelease = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArray))
_POINTER_SIZE = ctypes.sizeof(ctypes.c_void_p)


@_SchemaRelease
def _release_schema(ptr):
    # The memory belongs to Python objects the writer keeps; releasing only
    # marks the structure released, as the C Data Interface asks.
    ctypes.memset(ctypes.cast(ptr, ctypes.c_void_p).value + ArrowSchema.release.offset, 0, _POINTER_SIZE)


@_ArrayRelease
def _release_array(ptr):
    ctypes.memset(ctypes.cast(ptr, ctypes.c_void_p).value + ArrowArray.release.offset, 0, _POINTER_SIZE)


class _Column:
    """One Arrow column: format, length, validity (bool array, True where
    valid, or None), buffers after validity (numpy arrays or bytes)."""

    __slots__ = ("name", "format", "length", "valid", "buffers")

    def __init__(self, name, fmt, length, valid, buffers):
        self.name, self.format, self.length, self.valid, self.buffers = name, fmt, length, valid, buffers


_INT_FORMATS = {np.dtype("int8"): "c", np.dtype("uint8"): "C", np.dtype("int16"): "s", np.dtype("uint16"): "S",
                np.dtype("int32"): "i", np.dtype("uint32"): "I", np.dtype("int64"): "l", np.dtype("uint64"): "L"}
_INT_TARGETS = {"int": np.dtype("int32"), "long": np.dtype("int64")}
_UNKNOWN = object()  # the type of a column the table does not have


def frame_batch(df, schema, keep):
    """(schema pointer, array pointer, None) of the frame as one Arrow
    record batch, or (None, None, rows) when some column holds Python
    objects Arrow cannot be built from here: rows are dicts for the JSON
    path. keep receives every object the structures point into."""
    names = [str(c) for c in df.columns]
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise ValueError(f"the DataFrame has two columns named {dup!r}")
    types = {f.name: f.field_type for f in schema.fields}
    columns = []
    for name, (_, series) in zip(names, df.items()):
        col = _column(name, series, types.get(name, _UNKNOWN))
        if col is None:
            return None, None, _rows(df, names, types)
        if col is not False:
            columns.append(col)
    return _export(columns, len(df), keep)


def _column(name, series, field_type):
    """The _Column of one pandas column; False to leave it out (all
    missing, and the table has it: a null either way); None when only the
    JSON path can carry it. field_type is the table column's type
    (_UNKNOWN when the table has no such column)."""
    known = field_type is not _UNKNOWN
    target = field_type if isinstance(field_type, str) else None
    if known and len(series) and series.isna().all():
        return False  # nulls, whatever dtype pandas gave the column
    dtype = series.dtype
    n = len(series)
    if isinstance(dtype, pd.CategoricalDtype):
        series = series.astype(dtype.categories.dtype if not series.isna().any() else object)
        dtype = series.dtype
    if isinstance(dtype, pd.DatetimeTZDtype):
        utc = series.dt.tz_convert("UTC").dt.tz_localize(None)
        return _timestamp(name, utc.to_numpy(dtype="datetime64[ns]"), target, "UTC")
    if dtype.kind == "M":
        return _timestamp(name, series.to_numpy(dtype="datetime64[ns]"), target, "")
    if isinstance(dtype, pd.api.extensions.ExtensionDtype) and dtype.kind in "iufb":
        # pandas' masked Int*/Float*/boolean: values with the mask applied.
        valid = ~series.isna().to_numpy()
        values = series.to_numpy(dtype=dtype.numpy_dtype, na_value=0)
        return _numeric(name, values, valid, target)
    if dtype.kind in "iufb":
        values = series.to_numpy()
        valid = ~np.isnan(values) if dtype.kind == "f" else None
        return _numeric(name, values, valid, target)
    if dtype.kind == "O" or isinstance(dtype, pd.StringDtype):
        return _objects(name, series, field_type, known)
    return None


def _objects(name, series, field_type, known):
    target = field_type if isinstance(field_type, str) else None
    missing = series.isna().to_numpy()
    if missing.all():
        if known:
            return False
        return _strings(name, np.empty(0, dtype=object), missing)
    present = series[~missing].to_numpy(dtype=object)
    # The common cases first, by the values' exact types (map runs in C);
    # infer_dtype for the rest.
    types = set(map(type, present))
    if types == {str}:
        return _strings(name, present, missing)
    if types == {bytes}:
        return _binary(name, present, missing, target)
    if types == {decimal.Decimal} and target and target.startswith("decimal("):
        return _decimals(name, present, missing, target)
    if types == {datetime.date} and target in ("date", None):
        days = np.zeros(len(missing), np.int32)
        days[~missing] = np.array(present, dtype="datetime64[D]").astype(np.int64)
        return _Column(name, "tdD", len(missing), _valid(missing), [days])
    kind = pd.api.types.infer_dtype(present, skipna=False)
    if kind == "string":  # str subclasses (numpy.str_)
        return _strings(name, present, missing)
    if kind == "bytes":
        return _binary(name, present, missing, target)
    if kind in ("integer", "floating", "mixed-integer-float", "boolean"):
        typed = series.astype("boolean" if kind == "boolean" else "Float64" if kind != "integer" else "Int64")
        return _column(name, typed, field_type)
    return None


# Wide enough that scaling any decimal(38, s) value is exact; Inexact
# trapped, so a value with digits past the column's scale is refused.
_EXACT = decimal.Context(prec=100, Emin=-999999, Emax=999999, traps=[decimal.Inexact, decimal.InvalidOperation])


def _decimals(name, present, missing, target):
    """Decimal objects as a decimal128 column of the table's precision and
    scale: each value scaled to an integer and written as 16 little-endian
    bytes, in C-level passes (map) over the column."""
    precision, scale = (int(x) for x in target[len("decimal("):-1].split(","))
    try:
        scaled = map(methodcaller("scaleb", scale, _EXACT), present)
        ints = list(map(int, map(methodcaller("to_integral_exact", context=_EXACT), scaled)))
    except (decimal.Inexact, decimal.InvalidOperation, ValueError, OverflowError):
        bad = next(v for v in present if not _whole_when_scaled(v, scale))
        raise ValueError(f"column {name!r}: {bad} does not fit Iceberg {target} without rounding") from None
    limit = 10 ** precision
    low, high = min(ints), max(ints)
    if low <= -limit or high >= limit:
        bad = decimal.Decimal(low if low <= -limit else high).scaleb(-scale, _EXACT)
        raise ValueError(f"column {name!r}: {bad} has more than the {precision} digits of Iceberg {target}")
    data = np.zeros((len(missing), 16), np.uint8)
    raw = b"".join(map(methodcaller("to_bytes", 16, "little", signed=True), ints))
    data[~missing] = np.frombuffer(raw, np.uint8).reshape(-1, 16)
    return _Column(name, f"d:{precision},{scale}", len(missing), _valid(missing), [data])


def _whole_when_scaled(v, scale):
    """Whether v has no digit past scale (the error path only)."""
    try:
        int(v.scaleb(scale, _EXACT).to_integral_exact(context=_EXACT))
        return True
    except (decimal.DecimalException, ValueError, OverflowError):
        return False


def _offsets(lengths, missing):
    """Arrow offsets for values of these byte lengths at the rows not
    missing: 32-bit, or 64-bit (and a large type) past 2 GiB."""
    per_row = np.zeros(len(missing), np.int64)
    per_row[~missing] = lengths
    offsets = np.zeros(len(missing) + 1, np.int64)
    np.cumsum(per_row, out=offsets[1:])
    if offsets[-1] < 2 ** 31:
        return offsets.astype(np.int32), False
    return offsets, True


def _strings(name, present, missing):
    """str values: one join and one encode for the whole column; byte
    lengths are the character lengths when the text is ASCII, else each
    value's encoded length."""
    text = "".join(present)
    data = text.encode("utf-8")
    lengths = np.fromiter(map(len, present), np.int64, count=len(present))
    if len(data) != len(text):
        lengths = np.fromiter(map(len, map(str.encode, present)), np.int64, count=len(present))
    offsets, large = _offsets(lengths, missing)
    return _Column(name, "U" if large else "u", len(missing), _valid(missing), [offsets, data])


def _binary(name, present, missing, target):
    lengths = np.fromiter(map(len, present), np.int64, count=len(present))
    data = b"".join(present)
    width = _fixed_width(target)
    if width is not None and (lengths == width).all():
        # Nulls take width bytes of zeros in a fixed-size column.
        out = np.zeros((len(missing), width), np.uint8)
        out[~missing] = np.frombuffer(data, np.uint8).reshape(-1, width)
        return _Column(name, f"w:{width}", len(missing), _valid(missing), [out])
    offsets, large = _offsets(lengths, missing)
    return _Column(name, "Z" if large else "z", len(missing), _valid(missing), [offsets, data])


def _fixed_width(target):
    if target == "uuid":
        return 16
    if target and target.startswith("fixed[") and target.endswith("]"):
        return int(target[6:-1])
    return None


def _valid(missing):
    return None if not missing.any() else ~missing


def _numeric(name, values, valid, target):
    kind = values.dtype.kind
    if kind == "b":
        return _Column(name, "b", len(values), valid, [_bitmap(values)])
    if kind == "f" and target in _INT_TARGETS:
        present = values if valid is None else values[valid]
        if np.all(np.isfinite(present)) and np.all(present == np.trunc(present)):
            # An int column with a missing value is float64 in pandas.
            values = np.where(valid, values, 0) if valid is not None else values
            ints = values.astype(np.int64)
            if np.array_equal(ints.astype(values.dtype), values):
                values, kind = ints, "i"
    if kind in "iu" and target in ("double", "float"):
        # Whole numbers in a float column (pandas infers int64 for them):
        # as floats when every one converts exactly, else left to floe,
        # which refuses an integer column for a floating one.
        floats = values.astype(np.float64 if target == "double" else np.float32)
        if np.array_equal(floats.astype(values.dtype), values):
            values, kind = floats, "f"
    if kind in "iu":
        want = _INT_TARGETS.get(target)
        if want is not None and values.dtype != want:
            values = _fitted(name, values, valid, want, target)
        return _Column(name, _INT_FORMATS[values.dtype], len(values), valid, [np.ascontiguousarray(values)])
    if kind == "f":
        if target == "double" and values.dtype == np.float32:
            values = values.astype(np.float64)
        fmt = {4: "f", 8: "g"}.get(values.dtype.itemsize)
        if fmt is None:
            return None
        return _Column(name, fmt, len(values), valid, [np.ascontiguousarray(values)])
    return None


def _fitted(name, values, valid, want, target):
    """values as dtype want, refused when some value does not fit."""
    present = values if valid is None else values[valid]
    info = np.iinfo(want)
    if len(present):
        low, high = present.min(), present.max()
        bad = low if low < info.min else high if high > info.max else None
        if bad is not None:
            raise ValueError(f"column {name!r}: {bad} does not fit Iceberg {target}")
    return values.astype(want)


def _timestamp(name, values, target, zone):
    """datetime64[ns] values (UTC when zone) as a timestamp column in the
    table's unit, or a date column's days."""
    ns = values.view(np.int64)
    valid = ~np.isnat(values)
    present = ns[valid]
    if target == "date":
        day = 86_400 * 10 ** 9
        if (present % day == 0).all():
            days = (np.where(valid, ns, 0) // day).astype(np.int32)
            return _Column(name, "tdD", len(ns), None if valid.all() else valid, [days])
        raise ValueError(f"column {name!r}: a timestamp with a time of day cannot be written as an Iceberg date")
    if target in ("timestamp_ns", "timestamptz_ns"):
        return _Column(name, f"tsn:{zone}", len(ns), None if valid.all() else valid, [ns])
    finer = present % 1000 != 0
    if finer.any():
        bad = pd.Timestamp(int(present[finer][0]))
        raise ValueError(f"column {name!r}: {bad} has nanoseconds; Iceberg {target or 'timestamp'} keeps microseconds "
                         "(round the column first)")
    micros = np.where(valid, ns, 0) // 1000
    return _Column(name, f"tsu:{zone}", len(ns), None if valid.all() else valid, [micros])


def _bitmap(flags):
    """A bool array as an Arrow bitmap (LSB first)."""
    return np.packbits(np.asarray(flags, dtype=bool), bitorder="little")


def _address(buf, keep):
    """The address of a buffer's first byte (kept alive in keep)."""
    if isinstance(buf, bytes):
        if not buf:
            buf = b"\0"  # a valid pointer for an empty data buffer
        keep.append(buf)
        return ctypes.cast(ctypes.c_char_p(buf), ctypes.c_void_p).value
    buf = np.ascontiguousarray(buf)
    keep.append(buf)
    return buf.ctypes.data if buf.size else _address(b"", keep)


def _export(columns, n, keep):
    """The columns as a struct ArrowSchema and ArrowArray (a record batch)."""
    def new_schema(fmt, name, children):
        s = ArrowSchema()
        fmt_b, name_b = fmt.encode("utf-8"), name.encode("utf-8")
        keep.extend([s, fmt_b, name_b])
        s.format, s.name, s.flags = fmt_b, name_b, 2  # ARROW_FLAG_NULLABLE
        s.n_children = len(children)
        if children:
            ptrs = (ctypes.POINTER(ArrowSchema) * len(children))(*[ctypes.pointer(c) for c in children])
            keep.append(ptrs)
            s.children = ptrs
        s.release = _release_schema
        return s

    def new_array(length, null_count, buffers, children):
        a = ArrowArray()
        keep.append(a)
        a.length, a.null_count, a.offset = length, null_count, 0
        bufs = (ctypes.c_void_p * len(buffers))(*buffers)
        keep.append(bufs)
        a.n_buffers, a.buffers = len(buffers), bufs
        a.n_children = len(children)
        if children:
            ptrs = (ctypes.POINTER(ArrowArray) * len(children))(*[ctypes.pointer(c) for c in children])
            keep.append(ptrs)
            a.children = ptrs
        a.release = _release_array
        return a

    child_schemas, child_arrays = [], []
    for col in columns:
        child_schemas.append(new_schema(col.format, col.name, []))
        validity = None
        nulls = 0
        if col.valid is not None:
            nulls = int(col.length - np.count_nonzero(col.valid))
            validity = _address(_bitmap(col.valid), keep) if nulls else None
        buffers = [validity] + [_address(b, keep) for b in col.buffers]
        child_arrays.append(new_array(col.length, nulls, buffers, []))
    schema = new_schema("+s", "", child_schemas)
    schema.flags = 0
    array = new_array(n, 0, [None], child_arrays)
    return ctypes.addressof(schema), ctypes.addressof(array), None


def _rows(df, names, types):
    """The frame as row dicts for the JSON path: missing values None,
    numpy scalars as Python values (tolist converts them column by
    column), Timestamps as datetimes; as the Arrow path does, whole floats
    as ints for an int or long column and midnights as dates for a date
    column."""
    cols = []
    for name, (_, series) in zip(names, df.items()):
        target = types.get(name)
        if series.dtype.kind == "f" and target in _INT_TARGETS:
            present = series.dropna().to_numpy()
            if np.all(np.isfinite(present)) and np.all(present == np.trunc(present)):
                series = series.astype("Int64")
        elif series.dtype.kind == "M" and target == "date" and not isinstance(series.dtype, pd.DatetimeTZDtype):
            if (series.dropna() == series.dropna().dt.normalize()).all():
                series = series.dt.date
        missing = series.isna().to_numpy()
        values = series.astype(object).to_numpy()
        values[missing] = None
        cols.append(values.tolist())
    return [dict(zip(names, row)) for row in zip(*cols)]
