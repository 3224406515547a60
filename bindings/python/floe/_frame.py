"""Scan.to_pandas without pyarrow: numeric and timestamp columns become
numpy arrays over floe's own Arrow buffers, strings, decimals, dates and
nested columns go through _arrow's Python values.

No copy: a batch is moved out of the stream into a BatchOwner, and every
view of its buffers holds that owner, so floe keeps the memory until the
last view is gone (floe recycles a batch's buffers when it is released).
A scan of one batch therefore hands pandas floe's memory as is; more
batches are joined once per column (np.concatenate), the one copy a
contiguous column needs. What each Arrow type becomes:

===========================  ==============================================
Arrow                        pandas
===========================  ==============================================
int*, uint*                  that numpy dtype; with nulls pandas' masked
                             Int*/UInt* (the values still floe's buffer)
float32, float64             that dtype; nulls become NaN (as pyarrow does)
bool                         bool; with nulls pandas' masked "boolean"
timestamp[unit, zone]        datetime64 (pandas 1.x converts to ns); a zone
                             gives tz-aware values; nulls become NaT
everything else              object, values as Scan.to_pylist gives them
===========================  ==============================================
"""

import ctypes

import numpy as np
import pandas as pd

from ._lib import ArrowArray

_NUMERIC = {"c": "i1", "C": "u1", "s": "<i2", "S": "<u2", "i": "<i4", "I": "<u4",
            "l": "<i8", "L": "<u8", "f": "<f4", "g": "<f8"}
_DATETIME_UNITS = {"s": "s", "m": "ms", "u": "us", "n": "ns"}
_RELEASE_OFFSET = ArrowArray.release.offset


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
    """One batch's part of a column: numpy values and a null mask, or a
    list of Python values (kind "object")."""

    __slots__ = ("kind", "values", "mask")

    def __init__(self, kind, values, mask=None):
        self.kind, self.values, self.mask = kind, values, mask


def batch_pieces(owner, field, decoder):
    """The batch's columns, in schema order, as Pieces."""
    batch = owner.array
    pieces = []
    for i, child_field in enumerate(field.children):
        child = batch.children[i].contents
        pieces.append(_piece(owner, child_field, child, batch.offset + child.offset, batch.length, decoder))
    return pieces


def _piece(owner, field, array, offset, n, decoder):
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
    # Python values: the decoder reads the child from its own offset; the
    # batch's offset (0 in floe's batches) is applied here.
    skip = offset - array.offset
    return Piece("object", decoder.values(field, array)[skip:skip + n])


def _empty_piece(field):
    """A column of a scan that returned no batch, typed as its batches would be."""
    fmt = field.format
    if fmt in _NUMERIC:
        return Piece(fmt, np.empty(0, _NUMERIC[fmt]))
    if fmt == "b":
        return Piece(fmt, np.empty(0, bool))
    if fmt.startswith("ts"):
        return Piece(fmt, np.empty(0, f"datetime64[{_DATETIME_UNITS[fmt[2]]}]"))
    return Piece("object", [])


def _joined(pieces):
    """One column from its pieces: the piece itself when there is one."""
    if len(pieces) == 1:
        return pieces[0].values, pieces[0].mask
    values = np.concatenate([p.values for p in pieces])
    if all(p.mask is None for p in pieces):
        return values, None
    mask = np.concatenate([p.mask if p.mask is not None else np.zeros(len(p.values), bool) for p in pieces])
    return values, mask


def _series_values(fmt, pieces):
    """What pandas gets for one column."""
    if any(p.kind == "object" for p in pieces):
        out = np.empty(sum(len(p.values) for p in pieces), dtype=object)
        out[:] = [v for p in pieces for v in p.values]
        return out
    values, mask = _joined(pieces)
    if fmt in ("f", "g"):
        if mask is not None and mask.any():
            values = np.where(mask, np.nan, values).astype(values.dtype)
        return values
    if fmt in _NUMERIC:
        if mask is not None and mask.any():
            return pd.arrays.IntegerArray(values, mask, copy=False)
        return values
    if fmt == "b":
        if mask is not None and mask.any():
            return pd.arrays.BooleanArray(values, mask, copy=False)
        return values
    # A timestamp: NaT where null, then the zone (values are UTC).
    if mask is not None and mask.any():
        values = values.copy()
        values[mask] = np.datetime64("NaT")
    zone = fmt[4:]
    if not zone:
        return values
    return pd.DatetimeIndex(values).tz_localize("UTC").tz_convert(zone).array


def to_pandas(batches, fields, decoder):
    """A DataFrame from a scan's (schema Field, ArrowArray) batches."""
    columns = [[] for _ in fields]
    for field, batch in batches:
        owner = BatchOwner(batch)
        for i, piece in enumerate(batch_pieces(owner, field, decoder)):
            columns[i].append(piece)
    data = {}
    for field, pieces in zip(fields, columns):
        pieces = pieces or [_empty_piece(field)]
        data[field.name] = _series_values(field.format, pieces)
    # copy=False: pandas keeps each array as given instead of copying it
    # into a consolidated block.
    return pd.DataFrame(data, columns=[f.name for f in fields], copy=False)
