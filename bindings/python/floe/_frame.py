"""Scan.to_pandas without pyarrow: every column built in bulk with numpy
from floe's Arrow buffers (no Python loop over the values).

Numeric and timestamp columns are numpy views of the buffers, no copy: a
batch is moved out of the stream into a BatchOwner, and every view of its
buffers holds that owner, so floe keeps the memory until the last view is
gone (floe recycles a batch's buffers when it is released). A scan of one
batch therefore hands pandas floe's memory as is; more batches are joined
once per column, the one copy a contiguous column needs. Strings,
binaries, decimals and dates become objects in bulk (see _frame_objects:
C loops in libfloe, one object per distinct value shared by its rows and
across batches as pyarrow's deduplicate_objects does; an object column's
batches are joined by moving their objects, not copying them). Each
batch is converted as it arrives while a thread of its own asks floe for
the next (_frame_prefetch), so floe decodes on one core while Python
makes objects on another; that thread takes the GIL once a batch, only
to move the batch into its owner, so it never waits on the objects
being made (dictionary-encoding the strings there too cost more in
waits for the GIL than it saved). What each Arrow type becomes:

===========================  ==============================================
Arrow                        pandas
===========================  ==============================================
int*, uint*                  that numpy dtype; with nulls pandas' masked
                             Int*/UInt* (the values still floe's buffer)
float32, float64             that dtype; nulls become NaN (as pyarrow does)
bool                         bool; with nulls pandas' masked "boolean"
timestamp[unit, zone]        datetime64 (pandas 1.x converts to ns); a zone
                             gives tz-aware values; nulls become NaT
date32, date64               datetime.date objects (as pyarrow's default);
                             datetime64 with date_as_object=False
utf8, large_utf8             str objects; pandas' "string" dtype with
                             dtype_backend="numpy_nullable"
binary, fixed_size_binary    bytes objects (a uuid column: uuid.UUID)
decimal128(p, s)             decimal.Decimal objects, exact; float64 with
                             decimal_as_float=True
everything else (nested,     object, values as Scan.to_pylist gives them
time, uuid, variant)
===========================  ==============================================

Nulls are None in object columns (pd.NA with the "string" dtype).
Options (keyword arguments of to_pandas), named as pyarrow's and pandas'
are so that pyiceberg code keeps working:

- date_as_object (default True, as pyarrow): False gives datetime64.
- dtype_backend (pandas' name): "numpy_nullable" gives every column a
  nullable dtype: "string" for strings, Int*/UInt*/Float*/"boolean" masked
  arrays for numbers (NaN then stays a value, distinct from a null).
- decimal_as_float (floe's): decimals as float64 (NaN for nulls), the fast
  choice when exactness is not needed.
- use_threads, split_blocks, self_destruct, deduplicate_objects,
  ignore_metadata: pyarrow's performance switches, accepted and ignored.
"""

import ctypes

import numpy as np
import pandas as pd

from . import _frame_objects, _frame_prefetch
from ._lib import ArrowArray

_NUMERIC = {"c": "i1", "C": "u1", "s": "<i2", "S": "<u2", "i": "<i4", "I": "<u4",
            "l": "<i8", "L": "<u8", "f": "<f4", "g": "<f8"}
_DATETIME_UNITS = {"s": "s", "m": "ms", "u": "us", "n": "ns"}
_STRINGS = {"u": "<i4", "U": "<i8", "z": "<i4", "Z": "<i8"}
_RELEASE_OFFSET = ArrowArray.release.offset
_IGNORED = frozenset({"use_threads", "split_blocks", "self_destruct", "deduplicate_objects", "ignore_metadata"})


class Options:
    """to_pandas's keyword arguments (see the module docstring)."""

    __slots__ = ("date_as_object", "nullable", "decimal_as_float")

    def __init__(self, date_as_object=True, dtype_backend=None, decimal_as_float=False, **ignored):
        unknown = sorted(set(ignored) - _IGNORED)
        if unknown:
            raise TypeError(f"to_pandas() got unexpected keyword argument {unknown[0]!r} (without pyarrow it takes "
                            "date_as_object, dtype_backend and decimal_as_float)")
        if dtype_backend not in (None, "numpy", "numpy_nullable"):
            raise ValueError(f"dtype_backend {dtype_backend!r}: without pyarrow, to_pandas gives \"numpy_nullable\" "
                             "or numpy dtypes (None)")
        self.date_as_object = bool(date_as_object)
        self.nullable = dtype_backend == "numpy_nullable"
        self.decimal_as_float = bool(decimal_as_float)


class BatchOwner:
    """Owns one record batch moved out of a stream (the Arrow C Data
    Interface lets a consumer move an ArrowArray by copying it and nulling
    the source's release); releases it when garbage collected."""

    def __init__(self, batch):
        self.array = ArrowArray()
        ctypes.memmove(ctypes.addressof(self.array), ctypes.addressof(batch), ctypes.sizeof(ArrowArray))
        ctypes.memset(ctypes.addressof(batch) + _RELEASE_OFFSET, 0, ctypes.sizeof(ctypes.c_void_p))

    def __del__(self):
        if self.array.release:
            self.array.release(ctypes.byref(self.array))


def _view(owner, address, dtype, n):
    """n values of dtype at address, as a numpy array that keeps owner."""
    dtype = np.dtype(dtype)
    if n == 0:
        return np.empty(0, dtype)
    buf = (ctypes.c_char * (n * dtype.itemsize)).from_address(address)
    buf.owner = owner  # the view's base is buf, so the batch lives as long as the view
    return np.frombuffer(buf, dtype)


def _bits(owner, address, offset, n):
    """n bits of an Arrow bitmap at address, from bit offset on, as bools."""
    first = offset // 8
    nbytes = (offset + n + 7) // 8 - first
    bits = np.unpackbits(_view(owner, address + first, "u1", nbytes), bitorder="little")
    start = offset - first * 8
    return bits[start:start + n].astype(bool)


def _nulls(owner, array, offset, n):
    """A bool array, True where the value is null, or None when none is."""
    if array.null_count == 0 or not array.buffers[0]:
        return None
    return ~_bits(owner, array.buffers[0], offset, n)


class Piece:
    """One batch's part of a column: numpy values (objects for kind
    "object") and a null mask."""

    __slots__ = ("kind", "values", "mask")

    def __init__(self, kind, values, mask=None):
        self.kind, self.values, self.mask = kind, values, mask


def batch_pieces(owner, field, decoder, options=None, encoder=None):
    """The batch's columns, in schema order, as Pieces; encoder (an
    _frame_objects.Encoder) dictionary-encodes their strings."""
    options = options or Options()
    batch = owner.array
    pieces = []
    for i, child_field in enumerate(field.children):
        child = batch.children[i].contents
        piece = _piece(owner, child_field, child, batch.offset + child.offset, batch.length, decoder, options)
        if encoder is not None and isinstance(piece.values, _Bytes):
            piece.values.encoding = encoder.encoding(i, piece.values.offsets, piece.values.data)
        pieces.append(piece)
    return pieces


def _piece(owner, field, array, offset, n, decoder, options):
    fmt = field.format
    if fmt in _NUMERIC:
        dtype = np.dtype(_NUMERIC[fmt])
        values = _view(owner, array.buffers[1] + offset * dtype.itemsize, dtype, n)
        return Piece(fmt, values, _nulls(owner, array, offset, n))
    if fmt == "b":
        return Piece("b", _bits(owner, array.buffers[1], offset, n), _nulls(owner, array, offset, n))
    if fmt.startswith("ts"):
        values = _view(owner, array.buffers[1] + offset * 8, "<i8", n).view(f"datetime64[{_DATETIME_UNITS[fmt[2]]}]")
        return Piece(fmt, values, _nulls(owner, array, offset, n))
    # The rest are kept as raw buffers (views, or zero-filled copies where
    # nulls hold undefined bytes) and made objects once per column, after
    # the batches are joined: a value repeated across batches becomes one
    # object.
    mask = _nulls(owner, array, offset, n)
    if fmt in ("tdD", "tdm"):
        if fmt == "tdD":
            days = _view(owner, array.buffers[1] + offset * 4, "<i4", n)
        else:
            days = _view(owner, array.buffers[1] + offset * 8, "<i8", n) // 86_400_000
        return Piece("date", _zeroed(days, mask), mask)
    if fmt in _STRINGS:
        width = np.dtype(_STRINGS[fmt]).itemsize
        offsets = _view(owner, array.buffers[1] + offset * width, _STRINGS[fmt], n + 1)
        start = int(offsets[0]) if n else 0
        data = _view(owner, array.buffers[2] + start, "u1", int(offsets[-1]) - start) if n else np.empty(0, np.uint8)
        return Piece("utf8" if fmt in ("u", "U") else "binary", _Bytes(np.subtract(offsets, start, dtype=np.int64), data),
                     mask)
    if fmt.startswith("d:") and _decimal_width(fmt) == 16:
        words = _view(owner, array.buffers[1] + offset * 16, "<u8", 2 * n).reshape(n, 2)
        return Piece("d:" + fmt[2:].split(",")[1], _zeroed(words, mask), mask)
    if fmt.startswith("w:") and not decoder._is_uuid(field):
        width = int(fmt[2:])
        data = _view(owner, array.buffers[1] + offset * width, "u1", n * width)
        return Piece("binary", _Bytes(np.arange(n + 1, dtype=np.int64) * width, data), mask)
    if fmt == "n":
        return Piece("object", np.full(n, None, dtype=object))
    # Python values: the decoder reads the child from its own offset; the
    # batch's offset (0 in floe's batches) is applied here.
    skip = offset - array.offset
    values = decoder.values(field, array)[skip:skip + n]
    return Piece("object", np.fromiter(values, dtype=object, count=len(values)))


class _Bytes:
    """A batch's variable-width values: int64 offsets from 0 into data,
    and their dictionary encoding (_frame_objects.strings' encoding)."""

    __slots__ = ("offsets", "data", "encoding")

    def __init__(self, offsets, data):
        self.offsets, self.data, self.encoding = offsets, data, _frame_objects.NOT_ENCODED

    def __len__(self):
        return len(self.offsets) - 1


def _decimal_width(fmt):
    parts = fmt[2:].split(",")
    return (int(parts[2]) if len(parts) > 2 else 128) // 8


def _zeroed(values, mask):
    """values with the nulls' (undefined) values made 0."""
    if mask is None:
        return values
    out = values.copy()
    out[mask] = 0
    return out


def _empty_piece(field, options):
    """A column of a scan that returned no batch, typed as its batches would be."""
    fmt = field.format
    if fmt in _NUMERIC:
        return Piece(fmt, np.empty(0, _NUMERIC[fmt]))
    if fmt == "b":
        return Piece(fmt, np.empty(0, bool))
    if fmt.startswith("ts"):
        return Piece(fmt, np.empty(0, f"datetime64[{_DATETIME_UNITS[fmt[2]]}]"))
    if fmt in ("tdD", "tdm"):
        return Piece("date", np.empty(0, np.int32))
    if fmt.startswith("d:") and _decimal_width(fmt) == 16:
        return Piece("d:" + fmt[2:].split(",")[1], np.empty((0, 2), np.uint64))
    if fmt in _STRINGS:
        return Piece("utf8" if fmt in ("u", "U") else "binary", _Bytes(np.zeros(1, np.int64), np.empty(0, np.uint8)))
    return Piece("object", np.empty(0, dtype=object))


class Column:
    """One column built batch by batch: each batch's piece is converted
    as it arrives (objects made while floe decodes the next batch on
    another thread, see _frame_prefetch), and the parts are joined once
    at the end. known carries what the column's batches share: the
    objects made for repeated values and the path its strings take."""

    __slots__ = ("field", "kind", "parts", "masks", "known", "grown")

    def __init__(self, field):
        self.field, self.kind, self.parts, self.masks, self.known, self.grown = field, None, [], [], None, None

    def add(self, piece, options):
        kind, values, mask = piece.kind, piece.values, piece.mask
        if kind == "date":
            if not options.date_as_object:
                kind, values = "tdD", values.astype("datetime64[D]")
            else:
                self.known = self.known or _frame_objects.Known()
                kind, values = "object", _frame_objects.dates(values, self.known)
        elif kind.startswith("d:"):
            scale = int(kind[2:])
            # Strided views of the two words, no copy: what reads them
            # makes its own contiguous result.
            lo, hi = values[:, 0], values[:, 1].view(np.int64)
            if options.decimal_as_float:
                kind, values = "g", _frame_objects.decimals_as_float(lo, hi, scale)
            else:
                self.known = self.known or _frame_objects.Known()
                kind, values = "object", _frame_objects.decimals(lo, hi, scale, self.known)
        elif kind in ("utf8", "binary"):
            self.known = self.known or _frame_objects.KnownText()
            values = _frame_objects.strings(values.offsets, values.data, kind == "utf8", self.known, values.encoding)
            kind = "string" if kind == "utf8" else "object"
        self.kind = kind
        self.masks.append(mask if mask is not None else len(values))
        if kind in ("object", "string"):
            self.parts.append(values)
        elif self.grown is not None:
            self.grown.add(values)
        elif self.parts:
            # A second batch: the values are joined from now on (the first
            # alone stays a view of floe's buffer, no copy).
            self.grown = _Grown(self.parts.pop(), values)
        else:
            self.parts.append(values)

    def finish(self, options):
        """What pandas gets for the column."""
        if not self.masks:
            self.add(_empty_piece(self.field, options), options)
        parts = [self.grown.array()] if self.grown is not None else self.parts
        if self.kind in ("object", "string"):
            values = _frame_objects.joined(parts)
        else:
            values = parts[0] if len(parts) == 1 else np.concatenate(parts)
        mask = None
        if any(not isinstance(m, int) for m in self.masks):
            mask = np.concatenate([np.zeros(m, bool) if isinstance(m, int) else m for m in self.masks])
        self.parts = self.masks = self.grown = None
        return _series(self.kind, values, mask, options)


class _Grown:
    """Fixed-width values copied batch by batch into one buffer grown in
    place (ndarray.resize: realloc, which moves large buffers by
    remapping their pages, not copying): the join is one copy of each
    batch, made while floe decodes the next one, and a batch goes back
    to floe (which reuses its buffers) once copied instead of at the
    end."""

    __slots__ = ("buffer", "size")

    def __init__(self, first, second):
        self.buffer = np.empty(4 * (len(first) + len(second)), first.dtype)
        self.size = 0
        self.add(first)
        self.add(second)

    def add(self, values):
        end = self.size + len(values)
        if end > len(self.buffer):
            self.buffer.resize(max(end, 2 * len(self.buffer)), refcheck=False)
        self.buffer[self.size:end] = values
        self.size = end

    def array(self):
        self.buffer.resize(self.size, refcheck=False)
        return self.buffer


def _series(kind, values, mask, options):
    """A column's values (joined, converted) as pandas takes them."""
    has_nulls = mask is not None and mask.any()
    if kind in ("object", "string"):
        if has_nulls:
            values[mask] = None
        if kind == "string" and options.nullable:
            values[pd.isna(values)] = pd.NA
            return pd.arrays.StringArray(values)
        # A Series of dtype object: pandas takes the array as it is, where a
        # bare object array would be searched for datetimes first.
        return pd.Series(values, dtype=object, copy=False)
    if kind in ("f", "g"):
        if options.nullable:
            return pd.arrays.FloatingArray(values, mask if has_nulls else np.zeros(len(values), bool), copy=False)
        if has_nulls:
            values = np.where(mask, np.nan, values).astype(values.dtype)
        return values
    if kind in _NUMERIC:
        if has_nulls or options.nullable:
            return pd.arrays.IntegerArray(values, mask if has_nulls else np.zeros(len(values), bool), copy=False)
        return values
    if kind == "b":
        if has_nulls or options.nullable:
            return pd.arrays.BooleanArray(values, mask if has_nulls else np.zeros(len(values), bool), copy=False)
        return values
    # A timestamp or date: NaT where null, then the zone (values are UTC).
    if has_nulls:
        values = values.copy()
        values[mask] = np.datetime64("NaT")
    values = _nanoseconds(values)
    zone = kind[4:] if kind.startswith("ts") else ""
    if not zone:
        return values
    return pd.DatetimeIndex(values).tz_localize("UTC").tz_convert(zone).array


_NS_PER_UNIT = {"D": 86_400 * 10 ** 9, "s": 10 ** 9, "ms": 10 ** 6, "us": 10 ** 3}
_NAT = np.iinfo(np.int64).min


def _nanoseconds(values):
    """datetime64 values in nanoseconds (pandas 1.x's one unit), converted
    by numpy (NaT kept) when every value fits: pandas converts another
    unit checking value by value, some 50 ms a million. Values out of
    pandas' range are returned as they are, for pandas to refuse them as
    it always has (OutOfBoundsDatetime)."""
    unit = np.datetime_data(values.dtype)[0]
    if unit not in _NS_PER_UNIT or not len(values):
        return values
    ints = values.view(np.int64)
    nat = ints == _NAT
    present = ints[~nat] if nat.any() else ints
    limit = (2 ** 63 - 1) // _NS_PER_UNIT[unit]
    if len(present) and (int(present.min()) < -limit or int(present.max()) > limit):
        return values
    return values.astype("datetime64[ns]")


def view_row_bytes(fields, options):
    """The bytes a row of these columns takes when none of them becomes
    Python objects (numbers and timestamps, views of floe's buffers;
    booleans, unpacked; dates with date_as_object=False), else None."""
    date_as_object = options.get("date_as_object", True)
    width = 0
    for field in fields:
        fmt = field.format
        if fmt in _NUMERIC:
            width += np.dtype(_NUMERIC[fmt]).itemsize
        elif fmt == "b":
            width += 1
        elif fmt.startswith("ts"):
            width += 8
        elif fmt in ("tdD", "tdm") and not date_as_object:
            width += 4 if fmt == "tdD" else 8
        else:
            return None
    return width or None


def _owned(field, batch):
    """(field, the batch moved into a BatchOwner), on the thread reading
    ahead: the one step there that needs the GIL (see _frame_prefetch)."""
    return field, BatchOwner(batch)


def to_pandas(batches, schema_fields, decoder, **kwargs):
    """A DataFrame from a scan's (schema Field, ArrowArray) batches;
    schema_fields() gives the columns of a scan with no batch; kwargs are
    Options."""
    options = Options(**kwargs)
    encoder = _frame_objects.Encoder()
    columns = None
    try:
        for field, owner in _frame_prefetch.prefetched(batches, _owned):
            if columns is None:
                columns = [Column(f) for f in field.children]
            for column, piece in zip(columns, batch_pieces(owner, field, decoder, options, encoder)):
                column.add(piece, options)
    except BaseException:
        # The traceback holds this frame: the batches converted so far go
        # back to floe now, not when the caller drops the error.
        columns = column = owner = piece = None
        raise
    if columns is None:
        columns = [Column(f) for f in schema_fields()]
    names = [c.field.name for c in columns]
    data = {c.field.name: c.finish(options) for c in columns}
    # copy=False: pandas keeps each array as given instead of copying it
    # into a consolidated block.
    return pd.DataFrame(data, columns=names, copy=False)
