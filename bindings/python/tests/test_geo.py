"""v3 types through Python: a table with geometry, geography, unknown and
nanosecond timestamp columns is created, appended to from dicts (WKB as
bytes) and read back with to_pylist, WKB again as bytes; the scan's Arrow
schema tags the geo columns geoarrow.wkb with their CRS."""

import datetime
import json
import os
import shutil
import struct
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import floe  # noqa: E402

SCHEMA = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "id", "required": True, "type": "int"},
    {"id": 2, "name": "shape", "required": False, "type": "geometry(EPSG:3857)"},
    {"id": 3, "name": "place", "required": False, "type": "geography"},
    {"id": 4, "name": "nothing", "required": False, "type": "unknown"},
    {"id": 5, "name": "ts", "required": False, "type": "timestamp_ns"},
]}


def wkb_point(x, y):
    """POINT (x y) as little-endian ISO WKB, laid out by hand."""
    return struct.pack("<BIdd", 1, 1, x, y)


def wkb_line(*points):
    out = struct.pack("<BII", 1, 2, len(points))
    for x, y in points:
        out += struct.pack("<dd", x, y)
    return out


ROWS = [
    {"id": 1, "shape": wkb_point(30, 10), "place": wkb_point(-71.06, 42.36), "nothing": None,
     "ts": datetime.datetime(2024, 3, 1, 10, 0, 0, 123456)},
    {"id": 2, "shape": wkb_line((1, 2), (3, 4)), "place": None, "nothing": None, "ts": None},
    {"id": 3, "shape": None, "place": wkb_line((170, 0), (-170, 0)), "nothing": None,
     "ts": datetime.datetime(1969, 12, 31, 23, 59, 59, 999999)},
]


class GeoTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="floe-py-geo-")
        self.location = os.path.join(self.dir, "t")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_round_trip(self):
        t = floe.Table.create(self.location, SCHEMA, properties={"format-version": "3"})
        t.append(ROWS)
        with floe.Table.open(self.location) as again:
            types = {f["name"]: f["type"] for f in again.metadata["schemas"][-1]["fields"]}
            self.assertEqual(types["shape"], "geometry(EPSG:3857)")
            self.assertEqual(types["place"], "geography(OGC:CRS84, spherical)")
            scan = again.scan()
            rows = sorted(scan.to_pylist(), key=lambda r: r["id"])
            self.assertEqual(rows, ROWS)
            self.assertIsInstance(rows[0]["shape"], bytes)
            fields = {f.name: f for f in scan.schema.children}
            self.assertEqual(fields["shape"].metadata["ARROW:extension:name"], "geoarrow.wkb")
            self.assertEqual(json.loads(fields["shape"].metadata["ARROW:extension:metadata"]), {"crs": "EPSG:3857"})
            self.assertEqual(json.loads(fields["place"].metadata["ARROW:extension:metadata"]),
                             {"crs": "OGC:CRS84", "edges": "spherical"})
            self.assertEqual(fields["nothing"].format, "n")
            self.assertEqual(fields["ts"].format, "tsn:")
            # Other columns read on their own, unaffected.
            self.assertEqual(sorted(r["id"] for r in again.scan(selected_fields=["id"]).to_pylist()), [1, 2, 3])
            self.assertEqual([r["id"] for r in again.scan(row_filter="shape is null").to_pylist()], [3])


if __name__ == "__main__":
    unittest.main()
