"""pyiceberg's names for a table's metadata and a scan's outputs, checked
against the metadata JSON the fixtures hold (written by DuckDB and Impala)
and against tables floe writes."""

import datetime
import gc
import json
import math
import os
import sys
import tempfile
import unittest
import weakref
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import floe  # noqa: E402
from floe import FloeError  # noqa: E402
from floe._metadata import ListType, MapType, StructType  # noqa: E402

from fixtures import EXPECTED_ROWS, all_fixtures, fixture  # noqa: E402


def metadata_json(f):
    with open(f.metadata) as fh:
        return json.load(fh)


def have(module):
    try:
        __import__(module)
        return True
    except ImportError:
        return False


class TableInfoTest(unittest.TestCase):
    def test_every_fixture_against_its_metadata_file(self):
        for f in all_fixtures():
            with self.subTest(f.name), f.open() as t:
                md = metadata_json(f)
                self.assertEqual(t.format_version, md["format-version"])
                self.assertEqual(t.location(), md["location"])
                self.assertEqual(t.properties, md.get("properties", {}))
                schema = t.schema()
                raw = md["schemas"] if "schemas" in md else [md["schema"]]
                current = md.get("current-schema-id", raw[0].get("schema-id", 0))
                raw_current = next(s for s in raw if s.get("schema-id", 0) == current)
                self.assertEqual([(x.field_id, x.name, x.required) for x in schema.fields],
                                 [(x["id"], x["name"], x.get("required", False)) for x in raw_current["fields"]])
                self.assertEqual(sorted(t.schemas()), sorted(s.get("schema-id", 0) for s in raw))
                snaps = md.get("snapshots", [])
                self.assertEqual([s.snapshot_id for s in t.snapshots()], [s["snapshot-id"] for s in snaps])
                cur = t.current_snapshot()
                if md.get("current-snapshot-id") in (None, -1):
                    self.assertIsNone(cur)
                else:
                    self.assertEqual(cur.snapshot_id, md["current-snapshot-id"])
                    self.assertEqual(cur.snapshot_id, t.current_snapshot_id)
                    self.assertEqual(t.snapshot_by_id(cur.snapshot_id), cur)
                    self.assertEqual(cur.summary.operation, next(
                        s for s in snaps if s["snapshot-id"] == cur.snapshot_id)["summary"]["operation"])
                self.assertEqual([(h.snapshot_id, h.timestamp_ms) for h in t.history()],
                                 [(h["snapshot-id"], h["timestamp-ms"]) for h in md.get("snapshot-log", [])])
                for name, ref in md.get("refs", {}).items():
                    self.assertEqual(t.snapshot_by_name(name).snapshot_id, ref["snapshot-id"])
                self.assertIsNone(t.snapshot_by_name("no-such-ref"))
                self.assertIsNone(t.snapshot_by_id(-42))

    def test_partition_specs_and_sort_orders(self):
        # Impala's v1 table records its spec as a legacy "partition-spec"
        # list beside "partition-specs".
        with fixture("impala_iceberg_partitioned").open() as t:
            spec = t.spec()
            self.assertEqual([(f.name, f.transform, f.source_id) for f in spec.fields],
                             [("event_time_hour", "hour", 4), ("action", "identity", 3)])
            self.assertFalse(spec.is_unpartitioned())
            self.assertEqual(list(t.specs()), [spec.spec_id])
            self.assertTrue(t.sort_order().is_unsorted())
        with fixture("duckdb_lineitem_iceberg").open() as t:
            self.assertTrue(t.spec().is_unpartitioned())

    def test_nested_types_and_find_field(self):
        f = fixture("impala_iceberg_migrated_complex_test")
        with f.open() as t:
            schema = t.schema()
            kinds = {type(x.field_type) for x in schema.fields}
            self.assertTrue(kinds & {StructType, ListType, MapType}, f"no nested field in {schema}")
            for path, field in schema._walk():
                self.assertIs(schema.find_field(field.field_id).field_id, field.field_id)
                self.assertEqual(schema.find_field(path).field_id, field.field_id)
                self.assertEqual(schema.find_field(path.upper(), case_sensitive=False).field_id, field.field_id)
            with self.assertRaises(ValueError):
                schema.find_field("no_such_column")

    def test_plan_files(self):
        for name, rows in (("duckdb_lineitem_iceberg", EXPECTED_ROWS["duckdb_lineitem_iceberg"]),
                           ("impala_iceberg_partitioned", EXPECTED_ROWS["impala_iceberg_partitioned"])):
            with self.subTest(name), fixture(name).open() as t:
                files = t.scan().plan_files()
                self.assertGreater(len(files), 0)
                self.assertEqual(sum(x.file.record_count for x in files), rows)  # no deletes in these
                for x in files:
                    self.assertTrue(os.path.exists(x.file.file_path), x.file.file_path)
                    self.assertEqual(x.file.file_format, "PARQUET")
                    self.assertEqual(x.delete_files, [])
        with fixture("impala_iceberg_v2_partitioned_position_deletes").open() as t:
            self.assertTrue(any(x.delete_files for x in t.scan().plan_files()))


class RefreshTest(unittest.TestCase):
    SCHEMA = {"type": "struct", "schema-id": 0, "fields": [{"id": 1, "name": "i", "required": False, "type": "int"}]}

    def test_refresh_sees_a_commit_made_elsewhere(self):
        with tempfile.TemporaryDirectory() as d:
            loc = os.path.join(d, "t")
            with floe.Table.create(loc, self.SCHEMA) as writer, floe.Table.open(loc) as reader:
                writer.append([{"i": 1}, {"i": 2}])
                self.assertIsNone(reader.current_snapshot())
                self.assertIs(reader.refresh(), reader)
                self.assertEqual(reader.current_snapshot().snapshot_id, writer.current_snapshot_id)
                self.assertEqual(reader.scan().count(), 2)
                self.assertEqual(len(reader.history()), 1)

    def test_refresh_through_a_catalog(self):
        with tempfile.TemporaryDirectory() as d:
            cat = floe.load_catalog("c", uri="sqlite:///" + os.path.join(d, "cat.db"), warehouse=d)
            cat.create_namespace("db")
            first = cat.create_table("db.t", self.SCHEMA)
            second = cat.load_table("db.t")
            first.append([{"i": 7}])
            self.assertEqual(len(second.snapshots()), 0)
            self.assertEqual(len(second.refresh().snapshots()), 1)
            first.close()
            second.close()
            cat.close()

    def test_a_closed_table_refreshes_to_an_open_one(self):
        with tempfile.TemporaryDirectory() as d:
            loc = os.path.join(d, "t")
            floe.Table.create(loc, self.SCHEMA).close()
            t = floe.Table.open(loc)
            t.close()
            self.assertEqual(t.refresh().format_version, 2)
            t.close()

    def test_refresh_of_a_table_gone_raises(self):
        with tempfile.TemporaryDirectory() as d:
            loc = os.path.join(d, "t")
            t = floe.Table.create(loc, self.SCHEMA)
            import shutil

            shutil.rmtree(loc)
            with self.assertRaises(FloeError):
                t.refresh()
            self.assertEqual(t.format_version, 2)  # the old handle is kept
            t.close()


class OutputsTest(unittest.TestCase):
    @unittest.skipUnless(have("pandas"), "pandas is not installed")
    def test_to_pandas(self):
        with fixture("duckdb_lineitem_iceberg").open() as t:
            df = t.scan(selected_fields=["l_orderkey", "l_comment"], limit=100).to_pandas()
            self.assertEqual(list(df.columns), ["l_orderkey", "l_comment"])
            self.assertEqual(len(df), 100)

    @unittest.skipUnless(have("polars"), "polars is not installed")
    def test_to_polars(self):
        with fixture("duckdb_lineitem_iceberg").open() as t:
            self.assertEqual(t.scan(selected_fields=["l_orderkey"]).to_polars().height, 51793)

    @unittest.skipUnless(have("duckdb") and have("pyarrow"), "duckdb or pyarrow is not installed")
    def test_to_duckdb(self):
        with fixture("duckdb_lineitem_iceberg").open() as t:
            con = t.scan(selected_fields=["l_orderkey"]).to_duckdb("li")
            self.assertEqual(con.execute("select count(*) from li").fetchone()[0], 51793)


if __name__ == "__main__":
    unittest.main()


def _without_pyarrow():
    """Makes "import pyarrow" fail, so to_pandas takes its numpy path."""
    return mock.patch.dict(sys.modules, {"pyarrow": None})


def _comparable(v):
    """A pandas cell or a to_pylist value, in one form: None for every
    missing value, timestamps as microseconds since the epoch."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    import pandas as pd

    if v is pd.NaT or v is pd.NA:
        return None
    if isinstance(v, (pd.Timestamp, datetime.datetime)):
        ts = pd.Timestamp(v)
        return (ts.value // 1000, ts.tz is not None)
    if hasattr(v, "item") and not isinstance(v, (bytes, str)):
        return v.item()  # a numpy scalar
    return v


def _owner_of(values):
    """The floe batch a numpy array's memory belongs to, through its bases."""
    base = values
    while base is not None:
        owner = getattr(base, "owner", None)
        if owner is not None:
            return owner
        base = getattr(base, "base", None) if not isinstance(base, memoryview) else base.obj
    return None


@unittest.skipUnless(have("pandas") and have("numpy"), "pandas or numpy is not installed")
class PandasWithoutPyarrowTest(unittest.TestCase):
    def test_every_fixture_matches_to_pylist(self):
        for f in all_fixtures():
            with self.subTest(f.name), f.open() as t, _without_pyarrow():
                scan = t.scan()
                df = scan.to_pandas()
                rows = scan.to_pylist()
                self.assertEqual(len(df), EXPECTED_ROWS[f.name])
                self.assertEqual(list(df.columns), list(rows[0]) if rows else list(df.columns))
                for name in df.columns:
                    got = [_comparable(v) for v in df[name].tolist()]
                    want = [_comparable(r[name]) for r in rows]
                    self.assertEqual(got, want, name)
                # Its columns of numbers alone: the frame then reads large
                # batches of its own (floe_scan_stream_options).
                from floe import _frame

                numbers = [c.name for c in scan.schema.children if _frame.view_row_bytes([c], {})]
                if numbers:
                    alone = t.scan(selected_fields=numbers).to_pandas()
                    for name in numbers:
                        self.assertEqual([_comparable(v) for v in alone[name].tolist()],
                                         [_comparable(r[name]) for r in rows], name)

    def test_types_and_nulls(self):
        import numpy as np

        with fixture("impala_iceberg_v3_all_types").open() as t, _without_pyarrow():
            df = t.scan().to_pandas()
        self.assertEqual(df["col_bigint"].dtype, np.int64)
        self.assertEqual(df["col_int"].dtype, np.int32)
        self.assertEqual(df["col_double"].dtype, np.float64)
        self.assertEqual(df["col_float"].dtype, np.float32)
        self.assertEqual(df["col_boolean"].dtype, np.bool_)
        self.assertEqual(df["col_timestamp"].dtype.kind, "M")
        self.assertEqual(df["col_string"].dtype, object)
        # impala_test_default_part: j is null in some rows, so pandas'
        # masked Int32, not floats.
        with fixture("impala_test_default_part").open() as t, _without_pyarrow():
            df = t.scan().to_pandas()
            rows = t.scan().to_pylist()
        self.assertEqual(str(df["j"].dtype), "Int32")
        self.assertEqual(int(df["j"].isna().sum()), sum(r["j"] is None for r in rows))
        self.assertGreater(int(df["j"].isna().sum()), 0)
        # timestamptz values are UTC-aware.
        with fixture("impala_iceberg_timestamptz_part").open() as t, _without_pyarrow():
            df = t.scan().to_pandas()
        zoned = [c for c in df.columns if getattr(df[c].dtype, "tz", None) is not None]
        self.assertTrue(zoned)
        self.assertEqual(str(df[zoned[0]].dtype.tz), "UTC")

    def test_numeric_columns_view_floes_buffers(self):
        with fixture("duckdb_lineitem_iceberg").open() as t, _without_pyarrow():
            df = t.scan(selected_fields=["l_orderkey", "l_quantity"], limit=1000).to_pandas()
            want = [r["l_orderkey"] for r in t.scan(selected_fields=["l_orderkey"], limit=1000).to_pylist()]
        values = df["l_orderkey"].values
        owner = _owner_of(values)
        self.assertIsNotNone(owner, "l_orderkey was copied out of floe's batch")
        self.assertEqual(type(owner).__name__, "BatchOwner")
        # The batch stays alive (and unrecycled) while the frame holds it:
        # later scans reuse released buffers, and the values must not change.
        gc.collect()
        with fixture("duckdb_lineitem_iceberg").open() as t:
            t.scan(selected_fields=["l_orderkey"]).count()
        self.assertEqual(df["l_orderkey"].tolist(), want)
        self.assertTrue(owner.array.release)
        # Once no view is left, the owner goes, releasing the batch.
        owner = weakref.ref(owner)
        del df, values
        gc.collect()
        self.assertIsNone(owner(), "the batch outlived every view of it")

    def test_many_batches_and_empty_scans(self):
        with fixture("duckdb_lineitem_iceberg").open() as t, _without_pyarrow():
            df = t.scan(selected_fields=["l_orderkey", "l_extendedprice"], batch_size=4096).to_pandas()
            rows = t.scan(selected_fields=["l_orderkey", "l_extendedprice"]).to_pylist()
            empty = t.scan(row_filter="l_orderkey < 0", selected_fields=["l_orderkey", "l_comment"]).to_pandas()
        self.assertEqual(len(df), 51793)
        self.assertEqual(df["l_orderkey"].tolist(), [r["l_orderkey"] for r in rows])
        self.assertEqual(len(empty), 0)
        self.assertEqual(list(empty.columns), ["l_orderkey", "l_comment"])
        self.assertEqual(empty["l_orderkey"].dtype.kind, "i")
