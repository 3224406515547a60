"""to_pylist's Arrow decoding, on arrays laid out by hand as the Arrow
columnar format specifies (validity bitmaps, offsets, slices, children)."""

import ctypes
import datetime
import decimal
import os
import struct
import sys
import unittest
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from floe._arrow import Decoder, Field, iceberg_types  # noqa: E402
from floe._lib import ArrowArray  # noqa: E402

_keep = []  # buffers must outlive the arrays that point at them


def buf(data):
    b = ctypes.create_string_buffer(bytes(data), len(data) or 1)
    _keep.append(b)
    return ctypes.addressof(b)


def bitmap(bits):
    out = bytearray((len(bits) + 7) // 8)
    for i, bit in enumerate(bits):
        if bit:
            out[i // 8] |= 1 << (i % 8)
    return buf(out)


def array(length, buffers, children=(), offset=0, null_count=0):
    a = ArrowArray()
    a.length, a.offset, a.null_count = length, offset, null_count
    ptrs = (ctypes.c_void_p * len(buffers))(*buffers)
    kids = (ctypes.POINTER(ArrowArray) * max(len(children), 1))(*[ctypes.pointer(c) for c in children])
    _keep.extend([ptrs, kids, a, *children])
    a.n_buffers, a.buffers = len(buffers), ctypes.cast(ptrs, ctypes.POINTER(ctypes.c_void_p))
    a.n_children, a.children = len(children), ctypes.cast(kids, ctypes.POINTER(ctypes.POINTER(ArrowArray)))
    return a


def field(name, fmt, children=(), field_id=None, **metadata):
    md = dict(metadata)
    if field_id is not None:
        md["PARQUET:field_id"] = str(field_id)
    return Field(name, fmt, md, True, list(children))


def i32s(*v):
    return buf(struct.pack(f"<{len(v)}i", *v))


def i64s(*v):
    return buf(struct.pack(f"<{len(v)}q", *v))


class DecodeTest(unittest.TestCase):
    def decode(self, f, a, types=None):
        return Decoder(types).values(f, a)

    def test_ints_with_nulls_and_offset(self):
        a = array(3, [bitmap([1, 1, 0, 1]), i32s(7, 8, 9, 10)], offset=1, null_count=1)
        self.assertEqual(self.decode(field("x", "i"), a), [8, None, 10])

    def test_bool(self):
        a = array(10, [0, bitmap([1, 0, 0, 1, 1, 0, 0, 0, 0, 1])])
        self.assertEqual(self.decode(field("b", "b"), a), [True, False, False, True, True, False, False, False, False, True])

    def test_floats(self):
        a = array(2, [0, buf(struct.pack("<2f", 1.5, 3.14))])
        self.assertEqual(self.decode(field("f", "f"), a), [1.5, struct.unpack("<f", struct.pack("<f", 3.14))[0]])

    def test_strings_and_binary(self):
        offsets, data = i32s(0, 3, 3, 8), buf(b"abcxhello")
        a = array(3, [bitmap([1, 0, 1]), offsets, data], null_count=1)
        self.assertEqual(self.decode(field("s", "u"), a), ["abc", None, "xhell"])
        sliced = array(2, [0, offsets, data], offset=1)
        self.assertEqual(self.decode(field("s", "z"), sliced), [b"", b"xhell"])
        large = array(2, [0, i64s(0, 2, 4), buf(b"hiyo")])
        self.assertEqual(self.decode(field("s", "U"), large), ["hi", "yo"])

    def test_decimal(self):
        raw = b"".join(v.to_bytes(16, "little", signed=True) for v in (12345, -99999, 0))
        a = array(3, [0, buf(raw)])
        self.assertEqual(self.decode(field("d", "d:10,2"), a),
                         [decimal.Decimal("123.45"), decimal.Decimal("-999.99"), decimal.Decimal("0.00")])

    def test_dates_times_timestamps(self):
        self.assertEqual(self.decode(field("d", "tdD"), array(2, [0, i32s(19723, -1)])),
                         [datetime.date(2024, 1, 1), datetime.date(1969, 12, 31)])
        self.assertEqual(self.decode(field("t", "ttu"), array(1, [0, i64s(45045123456)])),
                         [datetime.time(12, 30, 45, 123456)])
        self.assertEqual(self.decode(field("ts", "tsu:"), array(1, [0, i64s(-876544)])),
                         [datetime.datetime(1969, 12, 31, 23, 59, 59, 123456)])
        utc = datetime.timezone.utc
        self.assertEqual(self.decode(field("ts", "tsu:UTC"), array(1, [0, i64s(1705314645123456)])),
                         [datetime.datetime(2024, 1, 15, 10, 30, 45, 123456, tzinfo=utc)])
        # Nanoseconds truncate toward the past.
        self.assertEqual(self.decode(field("ts", "tsn:"), array(2, [0, i64s(1999, -1)])),
                         [datetime.datetime(1970, 1, 1, 0, 0, 0, 1), datetime.datetime(1969, 12, 31, 23, 59, 59, 999999)])
        # Beyond datetime's range: the raw value.
        self.assertEqual(self.decode(field("ts", "tsu:"), array(1, [0, i64s(2**62)])), [2**62])

    def test_uuid_by_iceberg_type(self):
        u = uuid.UUID("8dc314d8-3fd4-4b3a-8bf5-c008f363c2e4")
        a = array(1, [0, buf(u.bytes)])
        self.assertEqual(self.decode(field("id", "w:16", field_id=1), a, {1: "uuid"}), [u])
        self.assertEqual(self.decode(field("id", "w:16", field_id=1), a, {1: "fixed[16]"}), [u.bytes])
        ext = field("id", "w:16", **{"ARROW:extension:name": "arrow.uuid"})
        self.assertEqual(self.decode(ext, a), [u])

    def test_struct_list_map(self):
        # struct<a: int32, b: list<int64>> with a null struct and a slice
        a_child = array(3, [0, i32s(1, 2, 3)])
        items = array(4, [0, i64s(10, 20, 30, 40)])
        b_child = array(3, [0, i32s(0, 2, 2, 4), ], children=[items])
        s = array(3, [bitmap([1, 0, 1])], children=[a_child, b_child], null_count=1)
        f = field("s", "+s", [field("a", "i"), field("b", "+l", [field("element", "l")])])
        self.assertEqual(self.decode(f, s), [{"a": 1, "b": [10, 20]}, None, {"a": 3, "b": [30, 40]}])
        sliced = array(2, [0], children=[a_child, b_child], offset=1)
        self.assertEqual(self.decode(f, sliced), [{"a": 2, "b": []}, {"a": 3, "b": [30, 40]}])

        keys = array(3, [0, i32s(0, 1, 2, 3), buf(b"xyz")])
        values = array(3, [bitmap([1, 0, 1]), i32s(7, 0, 9)], null_count=1)
        entries = array(3, [0], children=[keys, values])
        m = array(2, [0, i32s(0, 2, 3)], children=[entries])
        mf = field("m", "+m", [field("entries", "+s", [field("key", "u"), field("value", "i")])])
        self.assertEqual(self.decode(mf, m), [[("x", 7), ("y", None)], [("z", 9)]])

    def test_batch_rows(self):
        cols = [array(2, [0, i32s(1, 2)]), array(2, [0, i32s(0, 1, 3), buf(b"abc")])]
        batch = array(2, [0], children=cols)
        f = field("", "+s", [field("id", "i"), field("name", "u")])
        self.assertEqual(Decoder().batch_rows(f, batch), [{"id": 1, "name": "a"}, {"id": 2, "name": "bc"}])

    def test_unknown_format_is_an_error(self):
        with self.assertRaises(NotImplementedError):
            self.decode(field("x", "vu"), array(1, [0, 0, 0]))

    def test_iceberg_types(self):
        schema = {"type": "struct", "fields": [
            {"id": 1, "name": "u", "type": "uuid"},
            {"id": 2, "name": "l", "type": {"type": "list", "element-id": 3, "element": "uuid"}},
            {"id": 4, "name": "m", "type": {"type": "map", "key-id": 5, "key": "string", "value-id": 6,
                                            "value": {"type": "struct", "fields": [{"id": 7, "name": "x", "type": "uuid"}]}}},
        ]}
        types = iceberg_types(schema)
        self.assertEqual((types[1], types[3], types[5], types[7]), ("uuid", "uuid", "string", "uuid"))


if __name__ == "__main__":
    unittest.main()
