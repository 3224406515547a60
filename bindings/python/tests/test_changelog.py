"""t.changelog_scan: every row change of the snapshots in a range, as the
same Scan object t.scan returns, on a table floe writes here (appends, a
position delete, a copy-on-write delete, an overwrite of a keyed row) and
on Impala's table of appends then position deletes."""

import os
import pickle
import shutil
import sys
import tempfile
import unittest
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import floe  # noqa: E402
from floe import FloeError, Status  # noqa: E402

from fixtures import fixture  # noqa: E402

try:
    import pandas  # noqa: F401

    HAVE_PANDAS = True
except ImportError:
    HAVE_PANDAS = False

# i is the row's key (identifier field): an overwrite of a row keeps its i,
# so the changelog reports it as an update.
SCHEMA = {"type": "struct", "schema-id": 0, "identifier-field-ids": [1], "fields": [
    {"id": 1, "name": "i", "required": True, "type": "int"},
    {"id": 2, "name": "s", "required": False, "type": "string"},
]}
CHANGE_COLUMNS = ("_change_type", "_change_ordinal", "_commit_snapshot_id")


def full(t, snapshot_id):
    """The table's rows at a snapshot (None: before the first), as a
    multiset of (i, s)."""
    if snapshot_id is None:
        return Counter()
    return Counter((r["i"], r["s"]) for r in t.scan(snapshot_id=snapshot_id).to_pylist())


def changes(scan):
    return sorted((r["_change_ordinal"], r["_commit_snapshot_id"], r["_change_type"], r["i"], r["s"])
                  for r in scan.to_pylist())


class ChangelogScanTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="floe-py-changelog-")
        t = floe.Table.create(os.path.join(self.dir, "t"), SCHEMA)
        self.addCleanup(t.close)
        self.ids = [
            t.append([{"i": 1, "s": "a"}, {"i": 2, "s": "b"}, {"i": 3, "s": "c"}, {"i": 4, "s": "d"}]),
            t.append([{"i": 5, "s": "e"}, {"i": 6, "s": "f"}]),
            t.delete_rows("i = 2", delete_mode="merge-on-read"),
            t.delete_rows("i = 6", delete_mode="copy-on-write"),
            t.overwrite([{"i": 3, "s": "C"}], "i = 3"),
        ]
        self.table = t

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_changes_are_each_snapshots_difference(self):
        t = self.table
        self.assertEqual([s.snapshot_id for s in t.snapshots()], self.ids)
        self.assertEqual([e.snapshot_id for e in t.history()], self.ids)
        got = t.changelog_scan()
        self.assertEqual([f.name for f in got.schema.children], ["i", "s", *CHANGE_COLUMNS])
        # Each snapshot's changes, computed from full scans at it and its
        # parent: deleted rows and inserted rows, an update where a key
        # is on both sides.
        want = []
        for ordinal, sid in enumerate(self.ids):
            before, after = full(t, self.ids[ordinal - 1] if ordinal else None), full(t, sid)
            gone, new = before - after, after - before
            keys = {i for i, _ in gone} & {i for i, _ in new}
            for (i, s), n in gone.items():
                want += [(ordinal, sid, "UPDATE_BEFORE" if i in keys else "DELETE", i, s)] * n
            for (i, s), n in new.items():
                want += [(ordinal, sid, "UPDATE_AFTER" if i in keys else "INSERT", i, s)] * n
        self.assertEqual(changes(got), sorted(want))
        # Spelled out, so that the computation above cannot agree with a
        # wrong changelog by accident.
        a, b, d, c, o = self.ids
        self.assertEqual(changes(got), sorted([
            (0, a, "INSERT", 1, "a"), (0, a, "INSERT", 2, "b"), (0, a, "INSERT", 3, "c"), (0, a, "INSERT", 4, "d"),
            (1, b, "INSERT", 5, "e"), (1, b, "INSERT", 6, "f"),
            (2, d, "DELETE", 2, "b"),
            (3, c, "DELETE", 6, "f"),
            (4, o, "UPDATE_BEFORE", 3, "c"), (4, o, "UPDATE_AFTER", 3, "C"),
        ]))
        self.assertEqual(got.count(), 10)

    def test_range_columns_filter_limit(self):
        t = self.table
        a, b, d, c, o = self.ids
        self.assertEqual(changes(t.changelog_scan(from_snapshot_id=b, to_snapshot_id=c)),
                         [(0, d, "DELETE", 2, "b"), (1, c, "DELETE", 6, "f")])
        self.assertEqual(changes(t.changelog_scan(from_snapshot_id=o)), [])
        scan = t.changelog_scan(a, row_filter="i > 2", selected_fields=("_change_type", "i"))
        self.assertEqual([f.name for f in scan.schema.children], ["_change_type", "i"])
        self.assertEqual(sorted((r["i"], r["_change_type"]) for r in scan.to_pylist()),
                         [(3, "UPDATE_AFTER"), (3, "UPDATE_BEFORE"), (5, "INSERT"), (6, "DELETE"), (6, "INSERT")])
        self.assertEqual(len(t.changelog_scan(limit=3).to_pylist()), 3)
        self.assertEqual(t.changelog_scan(limit=3).count(), 3)

    @unittest.skipUnless(HAVE_PANDAS, "needs pandas")
    def test_to_pandas_equals_to_pylist(self):
        # to_pandas reads batch by batch on a thread of its own; a batch
        # of one change makes ten batches to join.
        scan = self.table.changelog_scan(batch_size=1)
        frame = scan.to_pandas()
        self.assertEqual(sorted(zip(frame["_change_ordinal"], frame["_change_type"], frame["i"], frame["s"])),
                         sorted((r["_change_ordinal"], r["_change_type"], r["i"], r["s"]) for r in scan.to_pylist()))
        self.assertEqual(len(frame), 10)

    def test_tasks_read_as_the_scan(self):
        t = self.table
        scan = t.changelog_scan(selected_fields=("i", "_change_type", "_change_ordinal"))
        tasks = scan.plan_tasks()
        self.assertGreaterEqual(len(tasks), len(self.ids))
        read = [r for task in tasks for r in pickle.loads(pickle.dumps(task)).to_pylist()]
        self.assertEqual(read, scan.to_pylist())
        self.assertTrue(all(path.endswith(".parquet") for task in tasks for path in task.file_paths))
        with self.assertRaises(FloeError) as cm:
            tasks[0].host_io()
        self.assertEqual(cm.exception.code, Status.UNSUPPORTED)

    def test_refusals(self):
        t = self.table
        with self.assertRaises(FloeError) as cm:
            t.changelog_scan(from_snapshot_id=42)
        self.assertIn("42", str(cm.exception))
        with self.assertRaises(FloeError) as cm:
            t.changelog_scan(from_snapshot_id=self.ids[2], to_snapshot_id=self.ids[1])
        self.assertEqual(cm.exception.code, Status.INVALID_ARGUMENT)
        with self.assertRaises(FloeError) as cm:
            t.changelog_scan(selected_fields=("nope",))
        self.assertEqual(cm.exception.code, Status.INVALID_ARGUMENT)
        scan = t.changelog_scan()
        for call in (lambda: scan.add_filter("i > 1"), scan.metrics):
            with self.assertRaises(FloeError) as cm:
                call()
            self.assertEqual(cm.exception.code, Status.UNSUPPORTED)


class ImpalaChangelogTest(unittest.TestCase):
    """A table another engine wrote: four appends, then two snapshots of
    position deletes."""

    def test_position_deletes_of_impala(self):
        t = fixture("impala_iceberg_v2_positional_not_all_data_files_have_delete_files").open()
        self.addCleanup(t.close)
        ids = [s.snapshot_id for s in t.snapshots()]
        got = Counter((r["_change_ordinal"], r["_change_type"], r["i"], r["s"]) for r in t.changelog_scan().to_pylist())
        want = Counter()
        for ordinal, sid in enumerate(ids):
            before, after = full(t, ids[ordinal - 1] if ordinal else None), full(t, sid)
            want.update({(ordinal, "DELETE", i, s): n for (i, s), n in (before - after).items()})
            want.update({(ordinal, "INSERT", i, s): n for (i, s), n in (after - before).items()})
        self.assertEqual(got, want)
        self.assertEqual(sum(n for (_, kind, _, _), n in got.items() if kind == "DELETE"), 4)


if __name__ == "__main__":
    unittest.main()
