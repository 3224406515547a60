"""Variant columns in to_pylist: the pure-Python decoder on values encoded
by hand as VariantEncoding.md lays them out, and a v3 table whose variant
column floe wrote from JSON rows, read back as Python values."""

import datetime
import decimal
import os
import shutil
import struct
import sys
import tempfile
import unittest
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from floe import _variant  # noqa: E402

# metadata: version 1, one-byte offsets; no keys, or the keys "a" and "bc"
EMPTY_META = bytes([0x01, 0x00, 0x00])
AB_META = bytes([0x11, 0x02, 0x00, 0x01, 0x03]) + b"abc"


def prim(kind, payload=b""):
    return bytes([kind << 2]) + payload


class VariantDecodeTest(unittest.TestCase):
    def check(self, value, want, meta=EMPTY_META):
        got = _variant.decode(meta, value)
        self.assertEqual(got, want)
        self.assertIs(type(got), type(want))

    def test_primitives(self):
        self.check(prim(0), None)
        self.check(prim(1), True)
        self.check(prim(2), False)
        self.check(prim(3, struct.pack("<b", -5)), -5)
        self.check(prim(4, struct.pack("<h", -300)), -300)
        self.check(prim(5, struct.pack("<i", 70000)), 70000)
        self.check(prim(6, struct.pack("<q", -(2 ** 63))), -(2 ** 63))
        self.check(prim(7, struct.pack("<d", 2.5)), 2.5)
        self.check(prim(14, struct.pack("<f", 1.5)), 1.5)
        self.check(prim(8, bytes([2]) + struct.pack("<i", -12345)), decimal.Decimal("-123.45"))
        self.check(prim(9, bytes([4]) + struct.pack("<q", 123456789012)), decimal.Decimal("12345678.9012"))
        self.check(prim(10, bytes([1]) + (10 ** 30).to_bytes(16, "little", signed=True)), decimal.Decimal(10 ** 30) / 10)
        self.check(prim(11, struct.pack("<i", 19000)), datetime.date(2022, 1, 8))
        utc = datetime.timezone.utc
        self.check(prim(12, struct.pack("<q", 1700000000123456)), datetime.datetime(2023, 11, 14, 22, 13, 20, 123456, tzinfo=utc))
        self.check(prim(13, struct.pack("<q", 1700000000123456)), datetime.datetime(2023, 11, 14, 22, 13, 20, 123456))
        self.check(prim(18, struct.pack("<q", 1700000000123456789)), datetime.datetime(2023, 11, 14, 22, 13, 20, 123456, tzinfo=utc))
        self.check(prim(19, struct.pack("<q", -1)), datetime.datetime(1969, 12, 31, 23, 59, 59, 999999))
        self.check(prim(17, struct.pack("<q", 3723000001)), datetime.time(1, 2, 3, 1))
        self.check(prim(15, struct.pack("<I", 3) + b"\x00\x01\xff"), b"\x00\x01\xff")
        self.check(prim(16, struct.pack("<I", 3) + "hé".encode()), "hé")
        u = uuid.UUID("f81d4fae-7dec-11d0-a765-00a0c91e6bf6")
        self.check(prim(20, u.bytes), u)
        self.check(bytes([(3 << 2) | 1]) + b"abc", "abc")  # short string

    def test_object_and_array(self):
        # {"a": 1, "bc": [true, "x"]}: field ids 0 and 1, one-byte ids and
        # offsets; the array's elements at offsets 0 and 1.
        arr = bytes([0x03, 0x02, 0x00, 0x01, 0x03]) + prim(1) + bytes([(1 << 2) | 1]) + b"x"
        one = prim(3, b"\x01")
        obj = bytes([0x02, 0x02, 0x00, 0x01, 0x00, len(one), len(one) + len(arr)]) + one + arr
        self.check(obj, {"a": 1, "bc": [True, "x"]}, AB_META)
        self.check(bytes([0x03, 0x00, 0x00]), [])
        self.check(bytes([0x02, 0x00, 0x00]), {})

    def test_malformed(self):
        for meta, value in [(EMPTY_META, b""), (b"", prim(0)), (bytes([0x02, 0, 0]), prim(0)),
                            (EMPTY_META, prim(6, b"\x01")), (EMPTY_META, prim(16, struct.pack("<I", 9) + b"ab")),
                            (EMPTY_META, bytes([0x02, 0x01, 0x00, 0x00, 0x01]) + prim(0)),  # key id 0 of none
                            (EMPTY_META, prim(31))]:
            with self.assertRaises(_variant.VariantError):
                _variant.decode(meta, value)


@unittest.skipUnless(os.environ.get("FLOE_LIBRARY"), "needs FLOE_LIBRARY (make lib)")
class VariantTableTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="floe-py-variant-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_to_pylist_returns_python_values(self):
        import floe

        schema = {"type": "struct", "fields": [
            {"id": 1, "name": "id", "required": True, "type": "long"},
            {"id": 2, "name": "v", "required": False, "type": "variant"},
        ]}
        t = floe.Table.create(os.path.join(self.dir, "t"), schema, format_version=3)
        rows = [
            {"id": 1, "v": {"name": "a", "tags": ["x", "y"], "n": 3, "deep": {"ok": True, "none": None}}},
            {"id": 2, "v": [1, -2, "three", [], {}]},
            {"id": 3, "v": "plain"},
            {"id": 4, "v": None},
            {"id": 5},
            {"id": 6, "v": 2.5},
            {"id": 7, "v": 12345678901234},
        ]
        t.append(rows)
        got = {r["id"]: r["v"] for r in t.scan().to_pylist()}
        self.assertEqual(got[1], {"deep": {"none": None, "ok": True}, "n": 3, "name": "a", "tags": ["x", "y"]})
        self.assertEqual(got[2], [1, -2, "three", [], {}])
        self.assertEqual(got[3], "plain")
        self.assertIsNone(got[4])
        self.assertIsNone(got[5])
        # JSON numbers with a fraction become variant decimals when exact,
        # as Spark's parse_json makes them.
        self.assertEqual(got[6], decimal.Decimal("2.5"))
        self.assertEqual(got[7], 12345678901234)
        self.assertEqual(list(got[1]), ["deep", "n", "name", "tags"])  # the encoding's (sorted) order


if __name__ == "__main__":
    unittest.main()
