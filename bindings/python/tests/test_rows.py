"""Row-level deletes and overwrites by filter, in both delete modes, on v2
and v3 tables. The expected rows are computed here from ROWS with the
predicate written in Python (a null compares as not true)."""

import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import floe  # noqa: E402
from floe import FloeError, Status  # noqa: E402

SCHEMA = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "i", "required": False, "type": "int"},
    {"id": 2, "name": "j", "required": False, "type": "int"},
]}
ROWS = [{"i": i, "j": None if i % 7 == 0 else i % 5} for i in range(1, 200)]


def rows_of(t):
    return sorted(t.scan().to_pylist(), key=lambda r: r["i"])


def delete_files(t):
    summary = t.metadata["snapshots"][-1]["summary"]
    return int(summary.get("total-delete-files", "0"))


class RowsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="floe-py-rows-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def table(self, name, version, props=None):
        t = floe.Table.create(os.path.join(self.dir, name), SCHEMA, format_version=version, properties=props)
        t.append(ROWS[:100])
        t.append(ROWS[100:])
        return t

    def test_delete_rows_in_each_mode_and_version(self):
        want = [r for r in ROWS if not (r["j"] is not None and r["j"] >= 3)]
        for version in (2, 3):
            for mode in ("copy-on-write", "merge-on-read"):
                t = self.table("t%d-%s" % (version, mode), version)
                t.delete_rows("j >= 3", delete_mode=mode, token="del-1")
                self.assertEqual(rows_of(t), want, (version, mode))
                if mode == "merge-on-read":
                    self.assertGreater(delete_files(t), 0)
                else:
                    self.assertEqual(delete_files(t), 0)
                # A retry with the same token commits nothing more.
                snapshots = len(t.metadata["snapshots"])
                t.delete_rows("j >= 3", delete_mode=mode, token="del-1")
                self.assertEqual(len(t.metadata["snapshots"]), snapshots)

    def test_overwrite_by_filter(self):
        t = self.table("ow", 2)
        t.overwrite([{"i": 1000, "j": 1}], "i < 50", delete_mode="merge-on-read")
        want = [r for r in ROWS if r["i"] >= 50] + [{"i": 1000, "j": 1}]
        self.assertEqual(rows_of(t), sorted(want, key=lambda r: r["i"]))
        self.assertEqual(t.metadata["snapshots"][-1]["summary"]["operation"], "overwrite")

    def test_nothing_matches_commits_nothing(self):
        t = self.table("none", 2)
        before = t.metadata["current-snapshot-id"]
        self.assertEqual(t.delete_rows("i > 100000"), before)
        self.assertEqual(len(t.metadata["snapshots"]), 2)

    def test_pinned_reads(self):
        t = floe.Table.create(os.path.join(self.dir, "pinned"), SCHEMA)
        empty = t.current_snapshot_id
        self.assertEqual(empty, -1)
        t.append(ROWS[:10])
        first = t.current_snapshot_id
        t.append(ROWS[10:20])
        self.assertEqual(t.scan(snapshot_id=empty).to_pylist(), [])
        self.assertEqual(len(t.scan(snapshot_id=first).to_pylist()), 10)
        self.assertEqual(len(t.scan().to_pylist()), 20)

    def test_bad_filter_and_mode(self):
        t = self.table("bad", 2)
        with self.assertRaises(FloeError) as e:
            t.delete_rows("no_such_column = 1")
        self.assertEqual(e.exception.code, Status.INVALID_ARGUMENT)
        with self.assertRaises(FloeError) as e:
            t.delete_rows("i = 1", delete_mode="sideways")
        self.assertEqual(e.exception.code, Status.INVALID_ARGUMENT)


if __name__ == "__main__":
    unittest.main()
