"""Metadata tables through t.inspect (pyiceberg's names), checked against
the fixture's metadata JSON read here with the json module."""

import datetime
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import floe  # noqa: E402
from floe import FloeError, Status  # noqa: E402

from fixtures import fixture  # noqa: E402

try:
    import pyarrow  # noqa: F401

    HAVE_PYARROW = True
except ImportError:
    HAVE_PYARROW = False

try:
    import pandas  # noqa: F401

    HAVE_PANDAS = True
except ImportError:
    HAVE_PANDAS = False

SIX = "impala_iceberg_v2_positional_not_all_data_files_have_delete_files"

# Java's metadata tables (pyiceberg's inspect methods of the same names).
KINDS = ("snapshots", "history", "metadata_log_entries", "refs", "manifests", "all_manifests", "entries",
         "all_entries", "files", "data_files", "delete_files", "all_files", "all_data_files", "all_delete_files",
         "partitions", "position_deletes")
WHOLE_TABLE = ("snapshots", "history", "metadata_log_entries", "refs", "all_manifests", "all_entries",
               "all_files", "all_data_files", "all_delete_files")


def metadata_json(f):
    with open(f.metadata) as fh:
        return json.load(fh)


def available(t, kind):
    """The kind's result, or None when this floe does not have it yet (the
    error then names it)."""
    try:
        return getattr(t.inspect, kind)()
    except FloeError as e:
        if e.code == Status.INVALID_ARGUMENT and f'no metadata table "{kind}"' in str(e):
            return None
        raise


class SnapshotsTest(unittest.TestCase):
    def setUp(self):
        self.f = fixture(SIX)
        self.md = metadata_json(self.f)
        self.t = self.f.open()

    def tearDown(self):
        self.t.close()

    def test_rows_are_the_metadata_snapshots(self):
        rows = self.t.inspect.snapshots().to_pylist()
        want = self.md["snapshots"]
        self.assertEqual(len(rows), len(want))
        self.assertEqual(len(rows), 6)
        for row, s in zip(rows, want):
            self.assertEqual(row["snapshot_id"], s["snapshot-id"])
            self.assertEqual(row["parent_id"], s.get("parent-snapshot-id"))
            self.assertEqual(row["operation"], s["summary"]["operation"])
            self.assertEqual(row["manifest_list"], s["manifest-list"])
            self.assertEqual(row["committed_at"], datetime.datetime.fromtimestamp(
                s["timestamp-ms"] / 1000, tz=datetime.timezone.utc))
            summary = {k: v for k, v in s["summary"].items() if k != "operation"}
            self.assertEqual(dict(row["summary"]), summary)

    def test_options(self):
        overwrites = [s["snapshot-id"] for s in self.md["snapshots"] if s["summary"]["operation"] == "overwrite"]
        self.assertEqual(len(overwrites), 2)
        r = self.t.inspect.snapshots(row_filter="operation = 'overwrite'", selected_fields=["snapshot_id"])
        self.assertEqual(r.to_pylist(), [{"snapshot_id": i} for i in overwrites])
        r = self.t.inspect.snapshots(row_filter={"type": "eq", "term": "operation", "value": "overwrite"})
        self.assertEqual([row["snapshot_id"] for row in r.to_pylist()], overwrites)
        self.assertEqual(len(self.t.inspect.snapshots(limit=4).to_pylist()), 4)
        self.assertEqual(self.t.inspect.snapshots(limit=0).to_pylist(), [])
        r = self.t.inspect.snapshots(selected_fields=["OPERATION"], case_sensitive=False, batch_size=2)
        self.assertEqual({tuple(row) for row in r.to_pylist()}, {("operation",)})
        self.assertEqual(r.count(), 6)

    def test_a_result_reads_again(self):
        r = self.t.inspect.snapshots()
        first = r.to_pylist()
        self.assertEqual(r.to_pylist(), first)
        self.assertEqual(r.count(), 6)

    def test_errors_name_what_is_wrong(self):
        with self.assertRaises(FloeError) as cm:
            self.t.inspect.read("snapshotz")
        self.assertEqual(cm.exception.code, Status.INVALID_ARGUMENT)
        self.assertIn('"snapshotz"', str(cm.exception))
        self.assertIn('did you mean "snapshots"', str(cm.exception))
        with self.assertRaises(FloeError) as cm:
            self.t.inspect.snapshots(selected_fields=["nope"])
        self.assertIn('"nope"', str(cm.exception))
        with self.assertRaises(FloeError) as cm:
            self.t.inspect.snapshots(row_filter="nope > 1")
        self.assertEqual(cm.exception.code, Status.INVALID_ARGUMENT)
        # The whole history has no snapshot to choose, as in Java.
        with self.assertRaises(FloeError) as cm:
            self.t.inspect.snapshots(self.md["current-snapshot-id"])
        self.assertEqual(cm.exception.code, Status.INVALID_ARGUMENT)
        with self.assertRaises(FloeError) as cm:
            self.t.inspect.read("snapshots", limit=-1)
        self.assertEqual(cm.exception.code, Status.INVALID_ARGUMENT)

    @unittest.skipUnless(HAVE_PANDAS, "needs pandas")
    def test_to_pandas(self):
        df = self.t.inspect.snapshots().to_pandas()
        self.assertEqual(list(df.columns), ["committed_at", "snapshot_id", "parent_id", "operation", "manifest_list",
                                            "summary"])
        self.assertEqual(list(df["snapshot_id"]), [s["snapshot-id"] for s in self.md["snapshots"]])

    @unittest.skipUnless(HAVE_PYARROW, "needs pyarrow")
    def test_to_arrow(self):
        tbl = self.t.inspect.snapshots(selected_fields=["snapshot_id", "operation"]).to_arrow()
        self.assertEqual(tbl.column_names, ["snapshot_id", "operation"])
        self.assertEqual(tbl.column("snapshot_id").to_pylist(), [s["snapshot-id"] for s in self.md["snapshots"]])


class EveryKindTest(unittest.TestCase):
    """Every pyiceberg method: floe's table, or a clear error naming it."""

    def test_every_method(self):
        for name in (SIX, "impala_iceberg_v3_deletion_vectors", "duckdb_lineitem_iceberg"):
            f = fixture(name)
            md = metadata_json(f)
            with f.open() as t:
                for kind in KINDS:
                    with self.subTest(table=name, kind=kind):
                        r = available(t, kind)
                        if r is None:
                            continue
                        rows = r.to_pylist()
                        self.assertEqual(r.count(), len(rows))
                        if kind == "snapshots":
                            self.assertEqual(len(rows), len(md["snapshots"]))
                        if kind == "history":
                            self.assertEqual([row["snapshot_id"] for row in rows],
                                             [e["snapshot-id"] for e in md.get("snapshot-log", [])])
                        if kind == "refs":
                            # A table without refs has main, its current snapshot (Java).
                            want = set(md.get("refs", {})) | ({"main"} if md.get("current-snapshot-id", -1) != -1 else set())
                            self.assertEqual(sorted(row["name"] for row in rows), sorted(want))
                        if kind in WHOLE_TABLE:
                            with self.assertRaises(FloeError) as cm:
                                getattr(t.inspect, kind)(md["current-snapshot-id"])
                            self.assertEqual(cm.exception.code, Status.INVALID_ARGUMENT)
                        else:
                            # The current snapshot chosen by id or by ref is what no choice reads.
                            by_id = getattr(t.inspect, kind)(md["current-snapshot-id"]).to_pylist()
                            self.assertEqual(len(by_id), len(rows))
                            if "main" in md.get("refs", {}):
                                self.assertEqual(len(getattr(t.inspect, kind)(ref="main").to_pylist()), len(rows))

    def test_files_at_an_older_snapshot(self):
        f = fixture(SIX)
        md = metadata_json(f)
        with f.open() as t:
            if available(t, "data_files") is None:
                self.skipTest("no data_files in this floe yet")
            for s in md["snapshots"]:
                rows = t.inspect.data_files(s["snapshot-id"], selected_fields=["record_count"]).to_pylist()
                # What the snapshot's summary says it holds.
                self.assertEqual(len(rows), int(s["summary"]["total-data-files"]))
                self.assertEqual(sum(r["record_count"] for r in rows), int(s["summary"]["total-records"]))


if __name__ == "__main__":
    unittest.main()
