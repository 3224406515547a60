"""Table.upsert as pyiceberg has it: rows whose key matches replace the
live ones, the others are inserted, unchanged rows are counted as
neither, in one snapshot; a key given twice is refused with nothing
committed. Input as a list of dicts, and as a pandas DataFrame when pandas
is there."""

import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import floe  # noqa: E402
from floe import FloeError, Status, UpsertResult  # noqa: E402

try:
    import pandas as pd
except ImportError:  # pragma: no cover
    pd = None

SCHEMA = {"type": "struct", "schema-id": 0, "identifier-field-ids": [1], "fields": [
    {"id": 1, "name": "id", "required": True, "type": "long"},
    {"id": 2, "name": "name", "required": False, "type": "string"},
    {"id": 3, "name": "score", "required": False, "type": "double"},
]}
BASE = [{"id": i, "name": f"n{i}", "score": i / 2} for i in range(100)]


def rows_of(t):
    return sorted(t.scan().to_pylist(), key=lambda r: r["id"])


class UpsertTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="floe-py-upsert-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def table(self, name, version=2):
        t = floe.Table.create(os.path.join(self.dir, name), SCHEMA, format_version=version)
        t.append(BASE[:50])
        t.append(BASE[50:])
        return t

    def expected(self, changes):
        by_id = {r["id"]: r for r in BASE}
        for r in changes:
            by_id[r["id"]] = r
        return [by_id[k] for k in sorted(by_id)]

    def test_upsert_dicts(self):
        for version in (1, 2, 3):
            t = self.table(f"v{version}", version)
            snapshots = len(t.metadata["snapshots"])
            changes = [{"id": i, "name": "changed", "score": -1.0} for i in range(0, 100, 10)]
            changes += [{"id": 3, "name": "n3", "score": 1.5}]  # unchanged
            changes += [{"id": 100 + i, "name": "new", "score": 0.0} for i in range(5)]
            res = t.upsert(changes)
            self.assertEqual(res, UpsertResult(rows_updated=10, rows_inserted=5))
            self.assertEqual(res.snapshot_id, t.metadata["current-snapshot-id"])
            self.assertEqual(len(t.metadata["snapshots"]), snapshots + 1)
            self.assertEqual(rows_of(t), self.expected(changes))

    def test_join_cols_and_when_clauses(self):
        t = self.table("join")
        changes = [{"id": 1000, "name": "n7", "score": 99.0}, {"id": 1001, "name": "zz", "score": 1.0}]
        res = t.upsert(changes, join_cols=["name"], when_not_matched_insert_all=False)
        self.assertEqual((res.rows_updated, res.rows_inserted), (1, 0))
        got = rows_of(t)
        self.assertNotIn(7, [r["id"] for r in got])
        self.assertIn({"id": 1000, "name": "n7", "score": 99.0}, got)
        self.assertNotIn(1001, [r["id"] for r in got])
        res = t.upsert(changes, join_cols="NAME", case_sensitive=False, when_matched_update_all=False)
        self.assertEqual((res.rows_updated, res.rows_inserted), (0, 1))

    def test_duplicate_keys_refused(self):
        t = self.table("dup")
        snapshots = len(t.metadata["snapshots"])
        with self.assertRaises(FloeError) as cm:
            t.upsert([{"id": 1, "name": "a", "score": 0.0}, {"id": 1, "name": "b", "score": 0.0}])
        self.assertEqual(cm.exception.code, Status.INVALID_ARGUMENT)
        self.assertIn("same key", cm.exception.message)
        self.assertEqual(len(t.metadata["snapshots"]), snapshots)
        self.assertEqual(rows_of(t), BASE)

    @unittest.skipIf(pd is None, "pandas is not installed")
    def test_upsert_pandas(self):
        t = self.table("pandas", 3)
        df = pd.DataFrame({"id": [5, 200], "name": ["five", "two hundred"], "score": [5.5, 200.0]})
        res = t.upsert(df, mode="copy-on-write")
        self.assertEqual((res.rows_updated, res.rows_inserted), (1, 1))
        self.assertEqual(rows_of(t), self.expected(df.to_dict("records")))


if __name__ == "__main__":
    unittest.main()
