"""The object columns of Scan.to_pandas (strings, binaries, decimals,
dates), built in bulk from floe's Arrow buffers: no Python loop over the
values. The objects are made by C loops: libfloe's floe_py_* calls
CPython's own constructors once per value (a str, bytes or Decimal), and
numpy's astype makes dates.

Strings and binaries: libfloe dictionary-encodes each batch's values
(floe_binary_dictionary: one hash per value, codes in the order values
first appear). When at most half the rows are distinct (a flag, a ship
mode), one object is made per distinct value and shared by its rows and
with the column's later batches, as pyarrow's to_pandas does
(deduplicate_objects); the encoding gives up as soon as more are
distinct, and the column's first batch of _CHOOSING_ROWS or more decides
whether later ones try. Otherwise (a comment) every value gets its own
object, made straight from the buffer.

Decimals: values within 64 bits are 1E-scale times each value made an
int (floe_py_int64_products), in a context wide enough never to round
(exact at 38 digits); wider ones go through int.from_bytes per value.
Values within a narrow range (a quantity, a discount) index a table of
Decimals made for the range; other repeated values share one object per
distinct value, unless a sample shows them mostly distinct. As float64:
one vectorised division. Dates: the same table of datetime.date objects
for the days' range (numpy's datetime64[D] to object conversion), shared.
"""

import ctypes
import decimal
import functools

import numpy as np
import pandas as pd

from . import _lib
from ._calls import _check

# Exact for every decimal128 and decimal256 (76 digits).
EXACT = decimal.Context(prec=100, Emin=-999999, Emax=999999)


def shared(keys):
    """(codes, rows): keys factorized, and for each distinct key one row
    holding it. Objects made for those rows and taken by codes give every
    row its value, one object per distinct value."""
    codes, uniques = pd.factorize(keys, sort=False)
    rows = np.empty(len(uniques), np.int64)
    rows[codes] = np.arange(len(codes))  # any row of a key will do
    return codes, rows


def by_distinct(keys, make):
    """make(rows) for one row of each distinct key, spread to every row
    (an object array). keys None: every row is distinct, make(None) makes
    them all."""
    if keys is None:
        return _object_array(make(None))
    return by_codes(*shared(keys), make)


def by_value(keys, make, known=None, bounds=None):
    """make(values) for each distinct value of the integer keys, spread to
    every row (an object array). Keys within a narrow range (a quantity, a
    day, a flag's code) index a table made for the whole range, with no
    hashing; other keys are factorized. known (a Known) keeps the objects
    made for a column's earlier batches, so a value in several batches is
    one object, as when the column is converted whole. bounds: the keys'
    (min, max) when the caller has them."""
    known = known if known is not None else Known()
    known.rows += len(keys)
    low, high = bounds if bounds is not None else (int(keys.min()), int(keys.max()))
    if known.covers(low, high):
        return spread(known.table, keys - keys.dtype.type(known.low))
    if known.narrow(low, high):
        known.widen(low, high, keys.dtype, make)
        return spread(known.table, keys - keys.dtype.type(known.low))
    codes, rows = shared(keys)
    return spread(known.objects(keys[rows], make), codes)


class Known:
    """The objects a column's batches made so far, by integer key: a table
    for a narrow range of keys (low on), and a dict for the others."""

    __slots__ = ("rows", "low", "table", "others")

    def __init__(self):
        self.rows, self.low, self.table, self.others = 0, 0, None, {}

    def covers(self, low, high):
        return self.table is not None and self.low <= low and high < self.low + len(self.table)

    def narrow(self, low, high):
        """Whether a table of low..high and the range held already costs
        little beside the rows seen (see _RANGE)."""
        if self.table is not None:
            low, high = min(low, self.low), max(high, self.low + len(self.table) - 1)
        return high - low < self.rows // _RANGE + 64

    def widen(self, low, high, dtype, make):
        """The table made to cover low..high too, keeping the objects made
        already (the table's, and the dict's for keys it now covers)."""
        if self.table is not None:
            low, high = min(low, self.low), max(high, self.low + len(self.table) - 1)
        keys = np.arange(low, high + 1, dtype=dtype)
        table = _object_array(make(keys))
        if self.table is not None:
            start = self.low - low
            table[start:start + len(self.table)] = self.table
        if self.others:
            held = np.fromiter(self.others, dtype=np.int64, count=len(self.others))
            held = held[(held >= low) & (held <= high)]
            if len(held):
                table[held - low] = _object_array([self.others[k] for k in held.tolist()])
        self.low, self.table = low, table

    def objects(self, distinct, make):
        """The object of each of the distinct keys: taken from the table or
        the dict, made (and kept) for the rest."""
        out = np.empty(len(distinct), dtype=object)
        todo = np.ones(len(distinct), bool)
        if self.table is not None:
            inside = (distinct >= self.low) & (distinct < self.low + len(self.table))
            out[inside] = self.table[distinct[inside] - self.low]
            todo &= ~inside
        keys = distinct[todo]
        if not len(keys):
            return out
        ints = keys.tolist()
        found = _object_array(list(map(self.others.get, ints)))
        missing = np.flatnonzero(np.equal(found, None))
        if len(missing):
            made = _object_array(make(keys[missing]))
            found[missing] = made
            self.others.update(zip([ints[i] for i in missing.tolist()], made.tolist()))
        out[todo] = found
        return out


# A table of the keys' whole range is made when the range is at most
# 1/_RANGE of the rows: its unused objects then cost little.
_RANGE = 8


def by_codes(codes, rows, make):
    """make(rows) (objects for rows holding each distinct value) taken for
    every row by codes."""
    return spread(_object_array(make(rows)), codes)


def spread(objects, codes):
    """Each row the object of its code: a Spread, taken when the column is
    joined."""
    return Spread(objects, codes)


class Spread:
    """A batch's part of an object column whose rows share objects: row
    i's object is objects[codes[i]]. The rows are given their objects
    when the column's parts are joined (joined), straight into the
    column, instead of an object array per batch then copied into it."""

    __slots__ = ("objects", "codes")

    def __init__(self, objects, codes):
        self.objects, self.codes = objects, codes

    def __len__(self):
        return len(self.codes)

    def array(self):
        return self.objects[self.codes]


def array(part):
    """A part (an object array or a Spread) as an object array."""
    return part.array() if isinstance(part, Spread) else part


def joined(parts):
    """One object array of a column's parts (object arrays, each made
    for the column and held by nothing else, and Spreads), in order. A
    Spread's rows take their objects straight into the column
    (floe_py_take_objects); an array's objects are moved, not copied: a
    copy (np.concatenate) touches every object's reference count twice
    (once to copy, once as the part is freed), a cache miss per value
    when the objects are distinct (1 M Decimals in 16 parts: 40 ms
    copied, 7 ms moved). The move swaps the part's pointers with the new
    column's Nones in one call (floe_py_swap_objects), so the part frees
    the Nones, every reference count stays exact, and nothing runs
    between the two halves of the move."""
    if len(parts) == 1:
        return array(parts[0])
    out = np.empty(sum(len(p) for p in parts), dtype=object)
    lib = _lib.python_objects()
    start = 0
    for part in parts:
        if isinstance(part, Spread):
            _take(part.objects, part.codes, out, start)
        elif len(part):
            if not (part.flags.c_contiguous and part.flags.owndata):
                part = part.copy()  # not one of ours to move from: copy it first
            lib.floe_py_swap_objects(part.ctypes.data, out.ctypes.data + out.itemsize * start, len(part))
        start += len(part)
    return out


def _take(objects, codes, out, start):
    """out[start:start + len(codes)] = objects[codes], in one pass."""
    objects = _object_array(objects)
    if not objects.flags.c_contiguous:
        objects = objects.copy()
    if codes.dtype not in (np.int32, np.int64):
        codes = codes.astype(np.int64)
    codes = np.ascontiguousarray(codes)
    made = _lib.python_objects().floe_py_take_objects(objects.ctypes.data, len(objects), codes.ctypes.data,
                                                      codes.itemsize, len(codes), out.ctypes.data + out.itemsize * start)
    if made != len(codes):
        raise RuntimeError("libfloe's floe_py_take_objects runs only inside CPython")


def _object_array(values):
    if isinstance(values, np.ndarray) and values.dtype == object:
        return values
    return np.fromiter(values, dtype=object, count=len(values))


class KnownText:
    """The objects a string or binary column's repeated values got
    (value: object), shared with its later batches."""

    __slots__ = ("objects",)

    def __init__(self):
        self.objects = {}


# strings' encoding before it is known: strings encodes the values itself.
NOT_ENCODED = object()


def strings(offsets, data, decode, known=None, encoding=NOT_ENCODED):
    """Every value of an Arrow utf8/binary array as str (decode) or bytes
    objects. offsets are the array's n+1 offsets (int64, relative to data),
    data its bytes as uint8; known (a KnownText) carries the column's
    objects from batch to batch; encoding is the values' (encode's, or
    an Encoder's) when already known."""
    if len(offsets) == 1:
        return np.empty(0, dtype=object)
    if encoding is NOT_ENCODED:
        encoding = encode(offsets, data)
    if encoding is None:
        return binary_objects(offsets[:-1], offsets[1:], data, decode)
    # One object per distinct value; a value an earlier batch made keeps
    # that object.
    objects = (known if known is not None else KnownText()).objects
    made = binary_objects(offsets[encoding.firsts], offsets[encoding.firsts + 1], data, decode)
    made = _object_array(list(map(objects.setdefault, made, made)))
    return spread(made, encoding.codes)


class Encoding:
    """The values' dictionary encoding: each row's code (codes in the
    order values first appear) and each code's first row."""

    __slots__ = ("codes", "firsts")

    def __init__(self, codes, firsts):
        self.codes, self.firsts = codes, firsts


def encode(offsets, data, scratch=None):
    """The Encoding of the values, or None when more than _most_shared(n)
    are distinct: libfloe (floe_binary_dictionary) gives up there, having
    hashed only as many, and lets go of the GIL while it works. scratch:
    an int64 array to reuse for the first rows (an Encoder's: fresh
    memory for them cost as much as encoding a column of flags)."""
    offsets, data = np.ascontiguousarray(offsets, np.int64), np.ascontiguousarray(data, np.uint8)
    n = len(offsets) - 1
    most = min(n, _most_shared(n))
    codes = np.empty(n, np.int32)
    if scratch is None or len(scratch) < max(most, 1):
        scratch = np.empty(max(most, 1), np.int64)
    firsts = scratch
    distinct = ctypes.c_int64()
    _check(_lib.library().floe_binary_dictionary(offsets.ctypes.data, n, data.ctypes.data, len(data), most,
                                                  codes.ctypes.data, firsts.ctypes.data, ctypes.byref(distinct)))
    if distinct.value < 0:
        return None
    return Encoding(codes, firsts[:distinct.value].copy())


def _most_shared(n):
    """The most distinct values n rows may hold and still share objects:
    half of them (more, and finding them costs more than it saves)."""
    return n // 2


class Encoder:
    """Encodes the string columns of a scan's batches. A column's first
    batch of _CHOOSING_ROWS or more chooses its path from its first
    _SAMPLE rows: mostly distinct there (a comment), the column is not
    encoded again, having cost a sample's hashing instead of half a
    batch's (64 Ki comments: 17 ms to find that half of them are
    distinct). A batch of a few rows (a small file read first) tells
    little of the column, so a later one chooses."""

    __slots__ = ("repeated", "scratch")

    def __init__(self):
        self.repeated, self.scratch = {}, np.empty(0, np.int64)

    def encoding(self, column, offsets, data):
        """encode's answer for the column (its index in the batch)."""
        n = len(offsets) - 1
        repeated = self.repeated.get(column)
        if repeated is False:
            return None
        if len(self.scratch) < _most_shared(n):
            self.scratch = np.empty(_most_shared(n), np.int64)
        if repeated is None and n >= _CHOOSING_ROWS:
            sample = offsets[:min(n, _SAMPLE) + 1]
            repeated = self.repeated[column] = encode(sample, data[:sample[-1]], self.scratch) is not None
            if not repeated:
                return None
        return encode(offsets, data, self.scratch)


def binary_objects(starts, ends, data, decode):
    """An object array of the str (decode) or bytes of data[starts[i]:ends[i]]
    for each i: one C loop calling CPython's own constructors
    (floe_py_binary_objects), no interpreted step per value."""
    starts = np.ascontiguousarray(starts, np.int64)
    ends = np.ascontiguousarray(ends, np.int64)
    data = np.ascontiguousarray(data, np.uint8)
    if len(ends) != len(starts):
        raise ValueError(f"{len(starts)} starts and {len(ends)} ends")
    out = np.empty(len(starts), dtype=object)
    made = _lib.python_objects().floe_py_binary_objects(starts.ctypes.data, ends.ctypes.data, data.ctypes.data,
                                                        len(data), len(out), int(bool(decode)), out.ctypes.data)
    if made != len(out):
        raise RuntimeError("libfloe's floe_py_binary_objects runs only inside CPython")
    return out


# A string column's path is chosen for its later batches by the first batch
# of at least this many rows.
_CHOOSING_ROWS = 64


# A sample of this many keys tells a column of mostly distinct values.
_SAMPLE = 4096


def mostly_distinct(keys):
    """Whether a sample of keys is mostly distinct: then sharing objects
    cannot pay for factorizing them all (a comment, a price)."""
    step = max(1, len(keys) // _SAMPLE)
    sample = keys[::step]
    return len(pd.unique(sample)) * 2 > len(sample)


def decimals(lo, hi, scale, known=None):
    """Decimal objects of 128-bit values given as their low and high 64
    bits (uint64, int64); known (a Known) shares the objects of values
    within 64 bits with the column's other batches."""
    if not len(lo):
        return np.empty(0, dtype=object)
    small = lo.view(np.int64)
    low, high = int(small.min()), int(small.max())
    # Every value within 64 bits: its high word is its low word's sign.
    # Non-negative values (the usual) are told by one pass over the high
    # words, with no temporary.
    if (low >= 0 and not hi.any()) or np.array_equal(hi, small >> 63):
        if not _narrow(low, high, len(small)) and mostly_distinct(small):
            return _scaled(small, scale)
        return by_value(small, lambda values: _scaled(values, scale), known, (low, high))
    pairs = np.empty((len(lo), 2), np.uint64)
    pairs[:, 0] = lo
    pairs[:, 1] = hi.view(np.uint64)
    low, low_distinct = pd.factorize(lo, sort=False)
    high, _ = pd.factorize(hi, sort=False)
    keys = high.astype(np.int64) * len(low_distinct) + low

    def make(rows):
        raw = np.ascontiguousarray(pairs[rows]).view("V16").ravel().astype(object)
        return _scaled_ints(map(_FROM_LE, raw), scale, len(raw))

    return by_distinct(keys, make)


_FROM_LE = functools.partial(int.from_bytes, byteorder="little", signed=True)


def _scaled(values, scale):
    """i * 10^-scale as a Decimal for each int64 i of values, an object
    array: 1E-scale times each value made an int, in one C loop
    (floe_py_int64_products). The product keeps the integer's digits and
    has the exponent -scale, as scaleb would give, in a context wide
    enough never to round (1 M distinct prices: 78 ms against 101 ms for
    the same __mul__ mapped over the values' list)."""
    values = np.ascontiguousarray(values, np.int64)
    out = np.empty(len(values), dtype=object)
    with decimal.localcontext(EXACT):
        made = _lib.python_objects().floe_py_int64_products(values.ctypes.data, len(values), _unit(scale),
                                                            out.ctypes.data)
    if made != len(out):
        raise RuntimeError("libfloe's floe_py_int64_products runs only inside CPython")
    return out


def _scaled_ints(ints, scale, count):
    """_scaled for Python ints past 64 bits (count of them, an iterable)."""
    with decimal.localcontext(EXACT):
        return np.fromiter(map(_unit(scale).__mul__, ints), dtype=object, count=count)


def _unit(scale):
    """1E-scale, exactly."""
    return decimal.Decimal(1).scaleb(-scale, EXACT)


def decimals_as_float(lo, hi, scale):
    """float64 values of 128-bit decimals (low and high 64 bits)."""
    small = lo.view(np.int64)
    values = small.astype(np.float64)
    wide = hi != small >> 63
    if wide.any():
        # Only values past 64 bits: hi * 2^64 + lo cancels badly for a small
        # negative value (hi -1, lo near 2^64).
        values[wide] = hi[wide].astype(np.float64) * 2.0 ** 64 + lo[wide].astype(np.float64)
    return values / 10.0 ** scale if scale >= 0 else values * 10.0 ** -scale


def dates(days, known=None):
    """datetime.date objects of days since 1970-01-01 (int32/int64);
    known (a Known) shares them with the column's other batches."""
    if not len(days):
        return np.empty(0, dtype=object)
    return by_value(days, lambda values: values.astype("datetime64[D]").astype(object), known)


def _narrow(low, high, n):
    """Whether by_value would take n keys from low to high through a table
    of their range."""
    return high - low < n // _RANGE + 64

