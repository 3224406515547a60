"""The forms a Python user reaches for when creating and reading tables:
partition_by as "day(ts)", "ts:day" or ("ts", "day"); a schema given as
floe's own Schema object; Catalog.create_table(..., location=...);
scan(as_of_timestamp=datetime)."""

import datetime
import os
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import floe  # noqa: E402
from floe import FloeError, Status  # noqa: E402

SCHEMA = {"type": "struct", "fields": [
    {"id": 1, "name": "id", "required": False, "type": "long"},
    {"id": 2, "name": "ts", "required": False, "type": "timestamp"},
    {"id": 3, "name": "name", "required": False, "type": "string"},
]}


def spec_of(t):
    return [(t.schema().find_field(f.source_id).name, f.transform, f.name) for f in t.spec().fields]


class PartitionByFormsTest(unittest.TestCase):
    def test_every_form_gives_the_same_spec(self):
        forms = {
            "call": ["day(ts)", "bucket(16, id)", "truncate(4, name)"],
            "bracket call": ["day(ts)", "bucket[16](id)", "truncate[4](name)"],
            "colon": ["ts:day", "id:bucket[16]", "name:truncate[4]"],
            "pairs": [("ts", "day"), ("id", "bucket[16]"), ("name", "truncate[4]")],
            "dicts": [{"column": "ts", "transform": "day"}, {"column": "id", "transform": "bucket[16]"},
                      {"column": "name", "transform": "truncate[4]"}],
        }
        want = [("ts", "day", "ts_day"), ("id", "bucket[16]", "id_bucket"), ("name", "truncate[4]", "name_trunc")]
        with tempfile.TemporaryDirectory() as d:
            for i, (what, partition_by) in enumerate(forms.items()):
                with self.subTest(what), floe.Table.create(os.path.join(d, f"t{i}"), SCHEMA,
                                                           partition_by=partition_by) as t:
                    self.assertEqual(spec_of(t), want)

    def test_a_plain_name_is_identity_and_one_string_is_one_field(self):
        with tempfile.TemporaryDirectory() as d:
            with floe.Table.create(os.path.join(d, "a"), SCHEMA, partition_by=["name"]) as t:
                self.assertEqual(spec_of(t), [("name", "identity", "name")])
            with floe.Table.create(os.path.join(d, "b"), SCHEMA, partition_by="ts:hour") as t:
                self.assertEqual(spec_of(t), [("ts", "hour", "ts_hour")])

    def test_malformed_forms_are_refused_and_create_nothing(self):
        with tempfile.TemporaryDirectory() as d:
            for i, bad in enumerate(["bucket(id)", "day(16, ts)", "ts:fortnight", ("ts",), "nosuch", 7]):
                where = os.path.join(d, f"t{i}")
                with self.subTest(bad):
                    with self.assertRaises((FloeError, ValueError, TypeError)):
                        floe.Table.create(where, SCHEMA, partition_by=[bad])
                    self.assertFalse(os.path.exists(os.path.join(where, "metadata")))


class SchemaObjectTest(unittest.TestCase):
    def test_a_tables_schema_creates_another_table(self):
        with tempfile.TemporaryDirectory() as d:
            with floe.Table.create(os.path.join(d, "a"), SCHEMA) as a:
                schema = a.schema()
            with floe.Table.create(os.path.join(d, "b"), schema, partition_by=["day(ts)"]) as b:
                self.assertEqual(b.schema().fields, schema.fields)
            cat = floe.load_catalog("c", uri="sqlite:///" + os.path.join(d, "c.db"), warehouse=os.path.join(d, "wh"))
            try:
                cat.create_namespace("db")
                with cat.create_table("db.c", schema) as c:
                    self.assertEqual(c.schema().fields, schema.fields)
            finally:
                cat.close()

    def test_other_objects_are_refused(self):
        with tempfile.TemporaryDirectory() as d, self.assertRaises(TypeError):
            floe.Table.create(os.path.join(d, "a"), object())


class CatalogCreateLocationTest(unittest.TestCase):
    def test_sql_catalog_puts_the_table_where_asked(self):
        with tempfile.TemporaryDirectory() as d:
            cat = floe.load_catalog("c", uri="sqlite:///" + os.path.join(d, "c.db"), warehouse=os.path.join(d, "wh"))
            try:
                cat.create_namespace("db")
                where = os.path.join(d, "elsewhere", "events")
                with cat.create_table("db.events", SCHEMA, location=where) as t:
                    t.append([{"id": 1}])
                    self.assertEqual(t.location().rstrip("/").replace("file://", ""), where)
                with cat.load_table("db.events") as t:
                    self.assertTrue(t.metadata_location.replace("file://", "").startswith(where + "/metadata/"))
                    self.assertEqual(t.scan().to_pylist(), [{"id": 1, "ts": None, "name": None}])
                self.assertFalse(os.path.exists(os.path.join(d, "wh", "db", "events")))
            finally:
                cat.close()

    def test_a_path_table_takes_no_location_option(self):
        # floe_table_create's location is its own argument: a second one in
        # the options is refused rather than ignored.
        from floe._calls import _check, _json_arg
        from floe._lib import library
        import ctypes
        import json

        with tempfile.TemporaryDirectory() as d:
            handle = ctypes.c_void_p()
            with self.assertRaises(FloeError) as cm:
                _check(library().floe_table_create(os.path.join(d, "t").encode(), json.dumps(SCHEMA).encode(),
                                                   _json_arg({"location": os.path.join(d, "u")}),
                                                   ctypes.byref(handle)))
            self.assertEqual(cm.exception.code, Status.INVALID_ARGUMENT)
            self.assertFalse(os.path.exists(os.path.join(d, "t")))


class AsOfTimestampTest(unittest.TestCase):
    def test_datetime_selects_the_snapshot_current_then(self):
        with tempfile.TemporaryDirectory() as d, floe.Table.create(os.path.join(d, "t"), SCHEMA) as t:
            t.append([{"id": 1}])
            first = t.current_snapshot()
            time.sleep(0.01)
            t.append([{"id": 2}])
            at = datetime.datetime.fromtimestamp(first.timestamp_ms / 1000, tz=datetime.timezone.utc)
            naive = at.replace(tzinfo=None)
            elsewhere = at.astimezone(datetime.timezone(datetime.timedelta(hours=-5)))
            for when in (at, naive, elsewhere, first.timestamp_ms):
                with self.subTest(repr(when)):
                    self.assertEqual([r["id"] for r in t.scan(as_of_timestamp=when).to_pylist()], [1])
            later = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=1)
            self.assertEqual(sorted(r["id"] for r in t.scan(as_of_timestamp=later).to_pylist()), [1, 2])
            with self.assertRaises(TypeError):
                t.scan(as_of_timestamp=datetime.date(2024, 1, 1))


if __name__ == "__main__":
    unittest.main()
