"""Decoding Parquet Variant values (the binary encoding of the spec's
VariantEncoding.md: a metadata dictionary of keys, and a self-describing
value) into Python values, in pure Python.

=========================  ===============================================
Variant                    Python
=========================  ===============================================
null                       None
boolean                    bool
int8/16/32/64              int
float, double              float
decimal4/8/16              decimal.Decimal (exact)
date                       datetime.date
timestamp (UTC)            aware datetime.datetime in UTC
timestamp without zone     naive datetime.datetime
                           (nanosecond timestamps are truncated toward the
                           past to microseconds; a value outside datetime's
                           range is returned as the raw integer, as for
                           timestamp columns)
time                       datetime.time
string                     str
binary                     bytes
uuid                       uuid.UUID
object                     dict (in the encoding's key order: sorted)
array                      list
=========================  ===============================================
"""

import datetime
import decimal
import struct
import uuid

_EPOCH_DATE = datetime.date(1970, 1, 1)
_EPOCH = datetime.datetime(1970, 1, 1)
_EPOCH_UTC = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)

# Deeper values are refused rather than exhausting Python's stack.
MAX_DEPTH = 500


class VariantError(ValueError):
    """A variant's bytes do not follow the encoding."""


def _uint(buf, pos, width):
    end = pos + width
    if pos < 0 or end > len(buf):
        raise VariantError("variant truncated")
    return int.from_bytes(buf[pos:end], "little")


def _int(buf, pos, width):
    end = pos + width
    if end > len(buf):
        raise VariantError("variant truncated")
    return int.from_bytes(buf[pos:end], "little", signed=True)


def metadata_keys(metadata):
    """The dictionary of a variant metadata buffer, as a list of str."""
    metadata = bytes(metadata)
    if not metadata:
        raise VariantError("empty variant metadata")
    header = metadata[0]
    if header & 0x0F != 1:
        raise VariantError(f"variant metadata version {header & 0x0F}, want 1")
    width = (header >> 6) + 1
    size = _uint(metadata, 1, width)
    offsets_at = 1 + width
    strings_at = offsets_at + (size + 1) * width
    if strings_at > len(metadata):
        raise VariantError("variant metadata truncated")
    keys = []
    prev = _uint(metadata, offsets_at, width)
    for i in range(size):
        nxt = _uint(metadata, offsets_at + (i + 1) * width, width)
        if nxt < prev or strings_at + nxt > len(metadata):
            raise VariantError("variant metadata offsets out of order")
        keys.append(metadata[strings_at + prev:strings_at + nxt].decode("utf-8"))
        prev = nxt
    return keys


def decode(metadata, value):
    """The Python value of one variant (metadata and value bytes)."""
    keys = metadata_keys(metadata)
    value = bytes(value)
    if not value:
        raise VariantError("empty variant value")
    return _value(keys, value, 0, 0)


def _value(keys, buf, pos, depth):
    if depth > MAX_DEPTH:
        raise VariantError(f"variant nested deeper than {MAX_DEPTH}")
    if pos >= len(buf):
        raise VariantError("variant truncated")
    header = buf[pos]
    basic, info = header & 0x03, header >> 2
    if basic == 1:  # short string
        end = pos + 1 + info
        if end > len(buf):
            raise VariantError("variant truncated")
        return buf[pos + 1:end].decode("utf-8")
    if basic == 2:  # object
        id_width = ((info >> 2) & 0x03) + 1
        off_width = (info & 0x03) + 1
        count_width = 4 if (info >> 4) & 1 else 1
        n = _uint(buf, pos + 1, count_width)
        ids_at = pos + 1 + count_width
        offs_at = ids_at + n * id_width
        data_at = offs_at + (n + 1) * off_width
        out = {}
        for i in range(n):
            key_id = _uint(buf, ids_at + i * id_width, id_width)
            if key_id >= len(keys):
                raise VariantError(f"variant object field id {key_id} is not in the metadata")
            off = _uint(buf, offs_at + i * off_width, off_width)
            out[keys[key_id]] = _value(keys, buf, data_at + off, depth + 1)
        return out
    if basic == 3:  # array
        off_width = (info & 0x03) + 1
        count_width = 4 if (info >> 2) & 1 else 1
        n = _uint(buf, pos + 1, count_width)
        offs_at = pos + 1 + count_width
        data_at = offs_at + (n + 1) * off_width
        return [_value(keys, buf, data_at + _uint(buf, offs_at + i * off_width, off_width), depth + 1)
                for i in range(n)]
    return _primitive(buf, pos + 1, info)


def _primitive(buf, pos, kind):
    if kind == 0:
        return None
    if kind == 1:
        return True
    if kind == 2:
        return False
    if 3 <= kind <= 6:
        return _int(buf, pos, 1 << (kind - 3))
    if kind == 7:
        return _unpack("<d", buf, pos)
    if kind == 14:
        return _unpack("<f", buf, pos)
    if 8 <= kind <= 10:
        if pos >= len(buf):
            raise VariantError("variant truncated")
        scale = buf[pos]
        unscaled = _int(buf, pos + 1, {8: 4, 9: 8, 10: 16}[kind])
        return decimal.Decimal(unscaled).scaleb(-scale, decimal.Context(prec=100))  # exact: 38 digits fit
    if kind == 11:
        return _EPOCH_DATE + datetime.timedelta(days=_int(buf, pos, 4))
    if kind in (12, 13, 18, 19):
        raw = _int(buf, pos, 8)
        micros = raw // 1000 if kind in (18, 19) else raw
        epoch = _EPOCH_UTC if kind in (12, 18) else _EPOCH
        try:
            return epoch + datetime.timedelta(microseconds=micros)
        except OverflowError:
            return raw
    if kind == 17:
        micros = _int(buf, pos, 8)
        seconds, us = divmod(micros, 1000000)
        minutes, s = divmod(seconds, 60)
        h, m = divmod(minutes, 60)
        try:
            return datetime.time(h, m, s, us)
        except ValueError:
            return micros
    if kind in (15, 16):
        n = _uint(buf, pos, 4)
        end = pos + 4 + n
        if end > len(buf):
            raise VariantError("variant truncated")
        raw = buf[pos + 4:end]
        return raw.decode("utf-8") if kind == 16 else raw
    if kind == 20:
        if pos + 16 > len(buf):
            raise VariantError("variant truncated")
        return uuid.UUID(bytes=buf[pos:pos + 16])
    raise VariantError(f"unknown variant primitive type {kind}")


def _unpack(fmt, buf, pos):
    size = struct.calcsize(fmt)
    if pos + size > len(buf):
        raise VariantError("variant truncated")
    return struct.unpack_from(fmt, buf, pos)[0]


__all__ = ["VariantError", "decode", "metadata_keys"]
