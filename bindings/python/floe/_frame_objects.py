"""The object columns of Scan.to_pandas (strings, binaries, decimals,
dates), built in bulk with numpy from floe's Arrow buffers: no Python loop
over the values, Python objects made by C-level calls (str.split,
ndarray.astype, map over C constructors).

Strings and binaries take one of two paths, chosen from a sample of a few
thousand values:

- Mostly distinct values (a comment): a byte the data lacks is put
  between the values (one numpy copy of the data buffer), and the whole
  buffer is decoded and split in C, one str or bytes per row.
- Repeated values up to 64 bytes (a flag, a ship mode): each value's
  bytes are gathered into a fixed-width matrix (one fancy index over
  overlapping windows of the data buffer, zeroed past each value's end a
  64-bit word at a time), rows are hashed and factorized (and checked
  against their representative, so a hash collision can only cost the
  sharing), and one object is made per distinct value, shared by its
  rows, as pyarrow's to_pandas does (deduplicate_objects). numpy strips
  trailing NULs from "S" values, so the few values ending in NUL are put
  right one by one.

Decimals: the 128-bit values become Python ints through numpy's tolist
when they all fit 64 bits (else int.from_bytes per value), Decimals
through Decimal(int) times 1E-scale in a context wide enough never to
round (exact at 38 digits); repeated values share one object unless a
sample shows them mostly distinct. As float64: one vectorised division.
Dates: one datetime.date per distinct day (numpy's datetime64[D] to
object conversion), shared.
"""

import decimal
import functools
import itertools
import operator

import numpy as np
import pandas as pd
from numpy.lib.stride_tricks import as_strided

# Exact for every decimal128 and decimal256 (76 digits).
EXACT = decimal.Context(prec=100, Emin=-999999, Emax=999999)

# At most this many padding bytes per byte of data (plus 16 a row) before
# rows are grouped by length.
_PADDING = 2


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


def by_codes(codes, rows, make):
    """make(rows) (objects for rows holding each distinct value) taken for
    every row by codes."""
    return _object_array(make(rows)).take(codes)


def _object_array(values):
    if isinstance(values, np.ndarray) and values.dtype == object:
        return values
    return np.fromiter(values, dtype=object, count=len(values))


def strings(offsets, data, decode):
    """Every value of an Arrow utf8/binary array as str (decode) or bytes
    objects. offsets are the array's n+1 offsets (int64, relative to data),
    data its bytes as uint8."""
    n = len(offsets) - 1
    out = np.empty(n, dtype=object)
    if n == 0:
        return out
    lengths = np.diff(offsets)
    if n > 1 and not (int(lengths.max()) <= _SHARED_WIDTH and _mostly_repeated(offsets, data)):
        split = _split(offsets, data, decode)
        if split is not None:
            return split
    width = _words(int(lengths.max())) * 8
    if width == 0:
        out[:] = "" if decode else b""
        return out
    padded = np.zeros(len(data) + width, np.uint8)
    padded[:len(data)] = data
    windows = as_strided(padded, shape=(len(data) + 1, width), strides=(1, 1))
    starts = offsets[:-1]
    if n * width <= _PADDING * len(data) + 16 * n:
        out[:] = _gathered(windows, starts, lengths, width, decode)
    else:
        # Groups of lengths within a factor of two: [2^(k-1), 2^k).
        group = np.frexp(lengths)[1]
        for k in np.unique(group):
            rows = np.flatnonzero(group == k)
            w = max(_words(int(lengths[rows].max())), 1) * 8
            out[rows] = _gathered(windows[:, :w], starts[rows], lengths[rows], w, decode)
    _fix_trailing_nuls(out, offsets, lengths, data, decode)
    return out


def _split(offsets, data, decode):
    """The values through one split of the data with a separator put
    between them: a byte the data does not hold (an ASCII one for text,
    so the UTF-8 stays valid), the separated buffer built with numpy, then
    decoded and split in C: str and bytes objects made at C speed. None
    when every candidate byte occurs in the data."""
    n = len(offsets) - 1
    sep = _free_byte(data, decode)
    if sep is None:
        return None
    separated = np.full(len(data) + n - 1, sep, np.uint8)
    # Value i's bytes move i places right: the i separators before them.
    keep = np.ones(len(separated), bool)
    keep[offsets[1:-1] + np.arange(n - 1)] = False
    separated[keep] = data
    if decode:
        parts = str(separated, "utf-8").split(chr(sep))  # decoded from numpy's buffer, no bytes copy
    else:
        parts = separated.tobytes().split(bytes([sep]))
    return np.fromiter(parts, dtype=object, count=n)


# ASCII control bytes text seldom holds: the unit, record, group and file
# separators, DEL.
_SEPARATORS = (0x1F, 0x1E, 0x1D, 0x1C, 0x7F)


def _free_byte(data, ascii_only):
    """A byte value data does not hold (ASCII when ascii_only), or None."""
    for sep in _SEPARATORS:
        if not np.count_nonzero(data == sep):
            return sep
    counts = np.bincount(data, minlength=256)[:128 if ascii_only else 256]
    free = np.flatnonzero(counts == 0)
    return int(free[0]) if len(free) else None


def _mostly_repeated(offsets, data):
    """Whether a sample of the values (a few thousand, evenly spread)
    repeats: then one object per distinct value (the byte-matrix path)
    beats making one per row."""
    n = len(offsets) - 1
    rows = np.arange(0, n, max(1, n // _SAMPLE))
    raw = data.tobytes() if len(data) <= 1 << 20 else None
    sample = set()
    for a, b in zip(offsets[rows].tolist(), offsets[rows + 1].tolist()):
        sample.add(raw[a:b] if raw is not None else data[a:b].tobytes())
    return len(sample) * 2 <= len(rows)


def _words(nbytes):
    return (nbytes + 7) // 8


# _LOW_BYTES[k]: a 64-bit word's k low bytes (little-endian) set.
_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=np.uint64)
# A sample of this many rows tells a column of mostly distinct values.
_SAMPLE = 4096
# Repeated values up to this many bytes take the byte-matrix path, one
# object per distinct value; the rest are split out of the data.
_SHARED_WIDTH = 64


def _gathered(windows, starts, lengths, width, decode):
    """The values starting at starts, as objects, through a (rows, width)
    byte matrix (width a multiple of 8): each row a value's bytes, then
    zeros (masked a 64-bit word at a time)."""
    matrix = windows[starts]
    words = matrix.view("<u8")
    # Row l of by_length: the word masks of a value of l bytes.
    by_length = _LOW_BYTES[np.clip(np.arange(width + 1)[:, None] - 8 * np.arange(width // 8)[None, :], 0, 8)]
    words &= by_length[lengths]
    shared_rows = _shared_rows(words)
    if shared_rows is None:
        return _object_array(_decoded(matrix, decode))
    return by_codes(*shared_rows, lambda rows: _decoded(matrix[rows], decode))


def mostly_distinct(keys):
    """Whether a sample of keys is mostly distinct: then sharing objects
    cannot pay for factorizing them all (a comment, a price)."""
    step = max(1, len(keys) // _SAMPLE)
    sample = keys[::step]
    return len(pd.unique(sample)) * 2 > len(sample)


def _row_hashes(words):
    """A 64-bit hash of each row of a (rows, words) uint64 matrix."""
    with np.errstate(over="ignore"):
        h = words[:, 0].copy()
        for c in range(1, words.shape[1]):
            h ^= h >> np.uint64(29)
            h *= np.uint64(0x9E3779B97F4A7C15)
            h += words[:, c]
    return h


def _shared_rows(words):
    """shared() of the rows of a zero-padded word matrix: (codes, a row
    of each distinct value), or None when most rows are distinct. Rows are
    hashed; every row is then compared with its hash's representative, so
    a collision only costs the sharing (None), never a wrong value."""
    rows = len(words)
    if rows < 2 or mostly_distinct(_row_hashes(words[::max(1, rows // _SAMPLE)])):
        return None
    codes, distinct = pd.factorize(_row_hashes(words), sort=False)
    if len(distinct) * 2 > rows:
        return None
    first = np.empty(len(distinct), np.int64)
    first[codes] = np.arange(rows)
    if words.shape[1] > 1 and not np.array_equal(words, words[first[codes]]):
        return None
    return codes, first


def _decoded(matrix, decode):
    """Rows of a zero-padded byte matrix as bytes, or str (UTF-8)."""
    values = np.ascontiguousarray(matrix).view(f"S{matrix.shape[1]}").ravel().astype(object)
    if decode:
        return list(map(bytes.decode, values))
    return values


def _fix_trailing_nuls(out, offsets, lengths, data, decode):
    """Values whose last byte is NUL, which "S" arrays strip, taken from
    the data again (rare, so one at a time)."""
    ends = offsets[1:] - 1
    nul = np.flatnonzero((lengths > 0) & (data[np.maximum(ends, 0)] == 0)) if len(data) else []
    for i in nul:
        raw = data[offsets[i]:offsets[i + 1]].tobytes()
        out[i] = raw.decode("utf-8") if decode else raw


def decimals(lo, hi, scale):
    """Decimal objects of 128-bit values given as their low and high 64
    bits (uint64, int64)."""
    if not len(lo):
        return np.empty(0, dtype=object)
    small = lo.view(np.int64)
    if np.array_equal(hi, small >> 63):
        if mostly_distinct(small):
            return _object_array(_scaled(small.tolist(), scale))
        return by_distinct(small, lambda rows: _scaled(small[rows].tolist(), scale))
    pairs = np.empty((len(lo), 2), np.uint64)
    pairs[:, 0] = lo
    pairs[:, 1] = hi.view(np.uint64)
    low, low_distinct = pd.factorize(lo, sort=False)
    high, _ = pd.factorize(hi, sort=False)
    keys = high.astype(np.int64) * len(low_distinct) + low

    def make(rows):
        raw = np.ascontiguousarray(pairs[rows]).view("V16").ravel().astype(object)
        return _scaled(map(_FROM_LE, raw), scale)

    return by_distinct(keys, make)


_FROM_LE = functools.partial(int.from_bytes, byteorder="little", signed=True)


def _scaled(ints, scale):
    """Decimal(i) * 10^-scale for each int: a product with 1E-scale keeps
    the integer's digits and gives the exponent -scale, as scaleb does,
    in a context wide enough never to round; it is the faster C call."""
    values = map(decimal.Decimal, ints)
    if scale == 0:
        return list(values)
    with decimal.localcontext(EXACT):
        return list(map(operator.mul, values, itertools.repeat(decimal.Decimal(1).scaleb(-scale, EXACT))))


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


def dates(days):
    """datetime.date objects of days since 1970-01-01 (int32/int64)."""
    return by_distinct(days, lambda rows: days[rows].astype("datetime64[D]").astype(object))

