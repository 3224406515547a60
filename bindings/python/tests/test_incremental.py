"""t.incremental_append_scan: the rows the append snapshots in a range
added, as the same Scan object t.scan returns."""

import os
import pickle
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from floe import FloeError, Status  # noqa: E402

from fixtures import fixture  # noqa: E402

# Impala's table: four appends, then two merge-on-read overwrites.
NAME = "impala_iceberg_v2_positional_not_all_data_files_have_delete_files"
S1, S2, S4 = 4363979609026842966, 5762682948883272650, 7490459762454857930


def rows(scan):
    return sorted((r["i"], r["s"]) for r in scan.to_pylist())


class IncrementalAppendScanTest(unittest.TestCase):
    def setUp(self):
        self.table = fixture(NAME).open()
        self.addCleanup(self.table.close)

    def test_rows_are_the_appends_between(self):
        t = self.table
        at1, at2, at4 = (rows(t.scan(snapshot_id=s)) for s in (S1, S2, S4))
        after1 = rows(t.incremental_append_scan(from_snapshot_id=S1))
        self.assertEqual(len(after1), 7)
        self.assertEqual(after1, sorted(set(at4) - set(at1)))
        self.assertEqual(rows(t.incremental_append_scan(S1, S2)), sorted(set(at2) - set(at1)))
        # pyiceberg's names for the same range.
        self.assertEqual(rows(t.incremental_append_scan(from_snapshot_id_exclusive=S1, to_snapshot_id_inclusive=S2)),
                         sorted(set(at2) - set(at1)))
        # Neither id: every append up to the current snapshot, the
        # overwrites' rows and deletes left out.
        self.assertEqual(rows(t.incremental_append_scan()), at4)
        self.assertEqual(rows(t.incremental_append_scan(from_snapshot_id=S4)), [])

    def test_filter_columns_and_tasks(self):
        t = self.table
        scan = t.incremental_append_scan(from_snapshot_id=S1, row_filter="i > 3", selected_fields=("i",))
        got = sorted(r["i"] for r in scan.to_pylist())
        want = sorted(i for i, _ in rows(t.incremental_append_scan(from_snapshot_id=S1)) if i > 3)
        self.assertEqual(got, want)
        self.assertTrue(got)
        self.assertEqual(list(scan.to_pylist()[0].keys()), ["i"])
        # Its tasks, as for any scan, read on their own once pickled.
        from_tasks = sorted(r["i"] for task in scan.plan_tasks() for r in pickle.loads(pickle.dumps(task)).to_pylist())
        self.assertEqual(from_tasks, got)

    def test_refusals(self):
        t = self.table
        with self.assertRaises(FloeError) as e:
            t.incremental_append_scan(from_snapshot_id=42)
        self.assertEqual(e.exception.code, Status.NOT_FOUND)
        self.assertIn("42", str(e.exception))
        with self.assertRaises(FloeError) as e:
            t.incremental_append_scan(from_snapshot_id=S2, to_snapshot_id=S1)
        self.assertEqual(e.exception.code, Status.INVALID_ARGUMENT)
        with self.assertRaises(ValueError):
            t.incremental_append_scan(from_snapshot_id=S1, from_snapshot_id_exclusive=S1)


if __name__ == "__main__":
    unittest.main()
