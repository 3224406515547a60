"""The object columns of Scan.to_pandas (strings, binaries, decimals,
dates), built in bulk with numpy from floe's Arrow buffers: no Python loop
over the values, Python objects made by C-level calls (map over str
slicing and C constructors, ndarray.astype).

Strings and binaries take one of two paths, chosen from a sample of a few
thousand values:

- Mostly distinct values (a comment): the column's data becomes one str
  (one decode straight from the buffer) or bytes, and each value is a
  C-level slice of it (text by character offsets, counted from the UTF-8
  continuation bytes when the text is not ASCII). No separator byte, no
  copy of the data.
- Repeated values up to 64 bytes (a flag, a ship mode): each value is
  keyed exactly by its length and its 64-bit words (read unaligned with
  one fancy index per word), the words are hashed, the hashes factorized,
  and every row checked against its key's first row (a collision only
  costs the sharing); one object is made per distinct value and shared
  by its rows, as pyarrow's to_pandas does (deduplicate_objects).
  Single-byte values index a table of the 256 bytes directly.

Decimals: the 128-bit values become Python ints through numpy's tolist
when they all fit 64 bits (else int.from_bytes per value), Decimals
through 1E-scale times each int in a context wide enough never to round
(exact at 38 digits). Values within a narrow range (a quantity, a
discount) index a table of Decimals made for the range; other repeated
values share one object per distinct value, unless a sample shows them
mostly distinct. As float64: one vectorised division. Dates: the same
table of datetime.date objects for the days' range (numpy's
datetime64[D] to object conversion), shared.
"""

import decimal
import functools
import itertools

import numpy as np
import pandas as pd

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


def by_value(keys, make, known=None):
    """make(values) for each distinct value of the integer keys, spread to
    every row (an object array). Keys within a narrow range (a quantity, a
    day, a flag's code) index a table made for the whole range, with no
    hashing; other keys are factorized. known (a Known) keeps the objects
    made for a column's earlier batches, so a value in several batches is
    one object, as when the column is converted whole."""
    known = known if known is not None else Known()
    known.rows += len(keys)
    low, high = int(keys.min()), int(keys.max())
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
    """objects[codes]: each row the object of its code. numpy's fancy
    index of an object array is twice as fast as its take."""
    return objects[codes]


def _object_array(values):
    if isinstance(values, np.ndarray) and values.dtype == object:
        return values
    return np.fromiter(values, dtype=object, count=len(values))


class KnownText:
    """A string or binary column's path, chosen on its first batch of
    _CHOOSING_ROWS or more (its sample tells repeated values from mostly
    distinct ones), and the
    objects its repeated values got, shared with later batches."""

    __slots__ = ("repeated", "objects")

    def __init__(self):
        self.repeated, self.objects = None, {}


def strings(offsets, data, decode, known=None):
    """Every value of an Arrow utf8/binary array as str (decode) or bytes
    objects. offsets are the array's n+1 offsets (int64, relative to data),
    data its bytes as uint8; known (a KnownText) carries the column's
    choices and objects from batch to batch."""
    n = len(offsets) - 1
    if n == 0:
        return np.empty(0, dtype=object)
    known = known if known is not None else KnownText()
    repeated = known.repeated
    if repeated is None:
        repeated = n > 1 and _mostly_repeated(offsets, data)
        if n >= _CHOOSING_ROWS:
            # A batch of a few rows (a small file read first) tells little
            # of the column: it takes its own path, a later batch chooses.
            known.repeated = repeated
    if repeated:
        repeated = _repeated(offsets, data, decode, known.objects)
        if repeated is not None:
            return repeated
    return _sliced(offsets, data, decode)


def _sliced(offsets, data, decode, rows=None):
    """The values (of rows, or all) sliced out of the column's data made
    one str or bytes (one decode, no copy for text), one C-level slice per
    value. Text is sliced by characters: a value's character offset is its
    byte offset less the UTF-8 continuation bytes before it (none in ASCII
    text). A few rows (the distinct values of a repeated column) are cut
    out one by one instead of decoding the batch's data whole for them
    (four ship instructions of a 64 Ki-row batch: 0.004 against 0.05 ms)."""
    if rows is not None and len(rows) <= _FEW_ROWS:
        pieces = [data[a:b].tobytes() for a, b in zip(offsets[rows].tolist(), offsets[rows + 1].tolist())]
        return _object_array([p.decode("utf-8") for p in pieces] if decode else pieces)
    if decode:
        whole = str(data, "utf-8")  # straight from numpy's buffer
        if len(whole) != len(data):
            continuation = np.zeros(len(data) + 1, np.int64)
            np.cumsum((data & 0xC0) == 0x80, out=continuation[1:])
            offsets = offsets - continuation[offsets]
    else:
        whole = data.tobytes()
    if rows is None:
        # One list of the offsets, read from 0 and from 1 (map stops at the shorter).
        starts = offsets.tolist()
        ends = itertools.islice(starts, 1, None)
    else:
        starts, ends = offsets[rows].tolist(), offsets[rows + 1].tolist()
    values = map(whole.__getitem__, map(slice, starts, ends))
    return np.fromiter(values, dtype=object, count=len(offsets) - 1 if rows is None else len(rows))


def _mostly_repeated(offsets, data):
    """Whether a sample of the values (a few thousand, evenly spread)
    repeats: then one object per distinct value beats making one per
    row."""
    n = len(offsets) - 1
    rows = np.arange(0, n, max(1, n // _SAMPLE))
    raw = data.tobytes() if len(data) <= 1 << 20 else None
    sample = set()
    for a, b in zip(offsets[rows].tolist(), offsets[rows + 1].tolist()):
        sample.add(raw[a:b] if raw is not None else data[a:b].tobytes())
    return len(sample) * 2 <= len(rows)


# The one-byte values by their byte, and the empty value at 256, as bytes
# and as text (a byte past ASCII never stands alone in UTF-8): made once,
# not per batch.
_FLAG_BYTES = np.array([bytes([b]) for b in range(256)] + [b""], dtype=object)
_FLAG_TEXT = np.array([chr(b) if b < 0x80 else None for b in range(256)] + [""], dtype=object)
# _LOW_BYTES[k]: a 64-bit word's k low bytes (little-endian) set.
_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=np.uint64)
# Up to this many rows are sliced one by one (see _sliced).
_FEW_ROWS = 64
# A sample of this many rows tells a column of mostly distinct values.
_SAMPLE = 4096
# A string column's path is chosen for its later batches by the first batch
# of at least this many rows.
_CHOOSING_ROWS = 64
# Repeated values up to this many bytes are keyed exactly by their 64-bit
# words; longer ones are sliced one object per row.
_SHARED_WIDTH = 64


def _repeated(offsets, data, decode, objects=None):
    """The values, one object per distinct value shared by its rows, or
    None when they are longer than _SHARED_WIDTH or mostly distinct.
    objects (value: object) holds what earlier batches made.

    A value of length l >= 8 is exactly its length and the 64-bit words
    at byte min(8j, l - 8) for j < ceil(l / 8) (the last word overlaps
    the one before it, so no masking); a shorter one its length and its
    first word masked to l bytes. The words are hashed together into one
    key that is factorized; every row is then compared with its key's
    first row, word by word, so a hash collision only costs the sharing,
    never a wrong value."""
    n = len(offsets) - 1
    lengths = np.diff(offsets)
    longest = int(lengths.max())
    if longest > _SHARED_WIDTH:
        return None
    if longest <= 1:
        # Flags: the byte itself (256 for the empty value) is the code.
        codes = np.where(lengths == 1, data[np.minimum(offsets[:-1], max(len(data) - 1, 0))] if len(data) else 0, 256)
        return spread(_FLAG_TEXT if decode else _FLAG_BYTES, codes)
    words = _key_words(offsets[:-1], lengths, data, longest)
    with np.errstate(over="ignore"):
        h = lengths.astype(np.uint64)
        for w in words:
            h *= np.uint64(0x9E3779B97F4A7C15)
            h += w
    codes, distinct = pd.factorize(h, sort=False)
    if len(distinct) * 2 > n:
        return None
    first = np.empty(len(distinct), np.int64)
    first[codes] = np.arange(n)
    representative = first[codes]
    if not np.array_equal(lengths, lengths[representative]):
        return None
    for w in words:
        if not np.array_equal(w, w[representative]):
            return None
    made = _sliced(offsets, data, decode, first)
    if objects is not None:
        # A value an earlier batch made keeps that object.
        made = _object_array(list(map(objects.setdefault, made, made)))
    return spread(made, codes)


def _key_words(starts, lengths, data, longest):
    """The 64-bit key words of each value (see _repeated), read unaligned:
    a uint64 view of the data stepping one byte, indexed (numpy's fancy
    indexing copies 8 bytes a row; its take is several times slower)."""
    padded = np.zeros(len(data) + 8, np.uint8)
    padded[:len(data)] = data
    unaligned = np.ndarray(shape=(len(data) + 1,), dtype="<u8", buffer=padded, strides=(1,))
    last = np.maximum(lengths - 8, 0)  # a short value's words all start at 0
    # All ones for 8 bytes or more: a short value's words keep its bytes only.
    keep = _LOW_BYTES[np.minimum(lengths, 8)]
    words = []
    for j in range(_words(longest)):
        word = unaligned[starts + np.minimum(8 * j, last) if j else starts]
        word &= keep
        words.append(word)
    return words


def _words(nbytes):
    return (nbytes + 7) // 8


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
    if np.array_equal(hi, small >> 63):
        if not _narrow(small) and mostly_distinct(small):
            return _scaled(small.tolist(), scale, len(small))
        return by_value(small, lambda values: _scaled(values.tolist(), scale, len(values)), known)
    pairs = np.empty((len(lo), 2), np.uint64)
    pairs[:, 0] = lo
    pairs[:, 1] = hi.view(np.uint64)
    low, low_distinct = pd.factorize(lo, sort=False)
    high, _ = pd.factorize(hi, sort=False)
    keys = high.astype(np.int64) * len(low_distinct) + low

    def make(rows):
        raw = np.ascontiguousarray(pairs[rows]).view("V16").ravel().astype(object)
        return _scaled(map(_FROM_LE, raw), scale, len(raw))

    return by_distinct(keys, make)


_FROM_LE = functools.partial(int.from_bytes, byteorder="little", signed=True)


def _scaled(ints, scale, count):
    """i * 10^-scale as a Decimal for each of count ints, an object array
    (filled straight from the iterator, no list between). 1E-scale's own
    __mul__ takes each int as it is: the product keeps the integer's
    digits and has the exponent -scale, as scaleb would give, in a context
    wide enough never to round, and no Decimal is made of the int first
    (1 M distinct prices in 64 Ki-row batches, one process: 127 ms against
    174 ms for Decimal(i) * 1E-scale)."""
    if scale == 0:
        return np.fromiter(map(decimal.Decimal, ints), dtype=object, count=count)
    with decimal.localcontext(EXACT):
        scaled = map(decimal.Decimal(1).scaleb(-scale, EXACT).__mul__, ints)
        return np.fromiter(scaled, dtype=object, count=count)


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


def _narrow(keys):
    """Whether by_value would take keys through a table of their range."""
    return int(keys.max()) - int(keys.min()) < len(keys) // _RANGE + 64

