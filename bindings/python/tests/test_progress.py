"""progress= on long calls: the counts a callable is told rise and end at
the totals, for a scan of DuckDB's lineitem fixture (to_pylist and
to_pandas), an append, add_files, expire_snapshots and compaction; and
progress=True draws on a terminal only."""

import importlib.util
import io
import os
import shutil
import sys
import tempfile
import unittest
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # fixtures, run from anywhere

import floe  # noqa: E402
from floe import _progress  # noqa: E402

from fixtures import fixture  # noqa: E402

LINEITEM_ROWS = 51793
HAVE_PANDAS = importlib.util.find_spec("pandas") is not None
COUNTS = ("files", "bytes", "rows")


class _TTY(io.StringIO):
    def isatty(self):
        return True


class ProgressTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="floe-py-progress-")
        # Poll blocking calls often, so a short one shows steps too.
        patcher = mock.patch.object(_progress, "POLL_EVERY", 0.001)
        patcher.start()
        self.addCleanup(patcher.stop)

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def assertRising(self, seen):
        """Every count and total never falls from one report to the next."""
        self.assertTrue(seen, "progress was never called")
        for a, b in zip(seen, seen[1:]):
            for name in COUNTS:
                self.assertLessEqual(getattr(a, name), getattr(b, name), f"{name}: {a} then {b}")
                self.assertLessEqual(getattr(a, name + "_total") or 0, getattr(b, name + "_total") or 0, name)

    def lineitem_scan(self):
        # Small batches: many reports.
        return fixture("duckdb_lineitem_iceberg").open().scan(batch_size=4096)

    def test_scan_counts_rise_to_the_totals(self):
        # lineitem: one file of 51,793 rows in batches; Impala's
        # partitioned table: 20 files, each a task of its own.
        for name, opts, rows in (("duckdb_lineitem_iceberg", {"batch_size": 4096}, LINEITEM_ROWS),
                                 ("impala_iceberg_partitioned", {"split_size": 1}, 20)):
            scan = fixture(name).open().scan(**opts)
            tasks = scan.plan_tasks()
            spans = sum(ft.get("length") or ft["file_size"] for task in tasks for ft in task.file_tasks)
            for read in ("to_pylist", "to_pandas", "to_pylist"):  # the scan read again counts from zero
                if read == "to_pandas" and not HAVE_PANDAS:
                    continue  # make test-dask runs this with pandas
                seen = []
                out = getattr(scan, read)(progress=seen.append)
                what = f"{name} {read}"
                self.assertEqual(len(out), rows, what)
                self.assertRising(seen)
                self.assertGreater(len(seen), 5, what)
                last = seen[-1]
                self.assertEqual((last.files, last.files_total), (len(tasks), len(tasks)), what)
                self.assertEqual((last.bytes, last.bytes_total), (spans, spans), what)
                self.assertEqual((last.rows, last.rows_total), (rows, None), what)
                self.assertEqual(last.fraction, 1.0)
                self.assertEqual(last.verb, "scan")
                self.assertLess(seen[0].rows, rows, what)  # the first report is before the end
                self.assertIn(f"{len(tasks)}/{len(tasks)} files", str(last))

    def test_append_counts_the_rows_taken(self):
        t = floe.Table.create(os.path.join(self.dir, "t"), fixture("duckdb_lineitem_iceberg").open().metadata["schemas"][-1])
        seen = []
        t.append(self.lineitem_scan(), progress=seen.append)
        self.assertRising(seen)
        self.assertGreater(len(seen), 1)  # the helper thread saw it under way
        self.assertEqual((seen[-1].rows, seen[-1].rows_total), (LINEITEM_ROWS, None))
        self.assertEqual(seen[-1].verb, "append")
        self.assertEqual(t.scan().count(), LINEITEM_ROWS)

        rows = [{"l_orderkey": i, "l_comment": f"row {i}"} for i in range(1000)]
        seen = []
        t.append(rows, progress=seen.append)
        self.assertRising(seen)
        # A list's length is the total; the counts are this call's alone.
        self.assertEqual((seen[-1].rows, seen[-1].rows_total), (1000, 1000))
        self.assertEqual(seen[-1].fraction, 1.0)

    def test_add_files_and_expiry(self):
        src = fixture("duckdb_lineitem_iceberg").open()
        paths = sorted({p for task in src.scan().plan_tasks() for p in task.file_paths})
        t = floe.Table.create(os.path.join(self.dir, "t"), src.metadata["schemas"][-1])
        seen = []
        t.add_files(paths, progress=seen.append)
        self.assertRising(seen)
        sizes = sum(os.path.getsize(p) for p in paths)
        self.assertEqual((seen[-1].files, seen[-1].files_total, seen[-1].bytes, seen[-1].rows),
                         (len(paths), len(paths), sizes, LINEITEM_ROWS))

        t = floe.Table.create(os.path.join(self.dir, "e"), {"type": "struct", "fields": [
            {"id": 1, "name": "id", "required": False, "type": "long"}]})
        for i in range(4):
            seen = []
            t.overwrite([{"id": i}, {"id": i + 10}], "true", progress=seen.append)
            self.assertEqual((seen[-1].rows, seen[-1].rows_total, seen[-1].verb), (2, 2, "overwrite"))
        seen = []
        res = t.expire_snapshots(older_than_ms=2**62, retain_last=1, progress=seen.append)
        self.assertRising(seen)
        self.assertEqual(len(res["deleted_files"]), 3 + 3 + 3)  # data files, manifests, manifest lists
        self.assertEqual((seen[-1].files, seen[-1].files_total), (9, 9))
        self.assertEqual(str(seen[-1]), "expire: 9/9 files deleted")

        # A call reporting nothing new reports zeros of its own, not the last call's counts.
        seen = []
        t.expire_snapshots(older_than_ms=2**62, retain_last=1, progress=seen.append)
        self.assertEqual([(p.files, p.files_total) for p in seen], [(0, None)])

    def test_compaction(self):
        t = floe.Table.create(os.path.join(self.dir, "t"), {"type": "struct", "fields": [
            {"id": 1, "name": "id", "required": False, "type": "long"}]})
        for i in range(3):
            t.append([{"id": i}])
        seen = []
        t.maintenance.rewrite_data_files(min_input_files=2, progress=seen.append)
        self.assertEqual([(p.files, p.files_total, p.noun) for p in seen], [(1, 1, "groups")])
        self.assertGreater(seen[0].bytes, 0)
        self.assertEqual(seen[0]["group"]["input_files"], 3)

        seen = []
        res = t.upsert([{"id": 1}, {"id": 7}, {"id": 8}], join_cols=["id"], progress=seen.append)
        self.assertEqual((res.rows_inserted, seen[-1].rows, seen[-1].rows_total), (2, 3, 3))

    def test_progress_true_draws_on_a_terminal_only(self):
        scan = self.lineitem_scan()
        for stream in (io.StringIO(), None):
            with mock.patch.object(sys, "stderr", stream):
                self.assertEqual(len(scan.to_pylist(progress=True)), LINEITEM_ROWS)
                if stream is not None:
                    self.assertEqual(stream.getvalue(), "")
        tty = _TTY()
        with mock.patch.object(sys, "stderr", tty), mock.patch.object(_progress, "FIRST_DRAW", 0), \
                mock.patch.object(_progress, "DRAW_EVERY", 0):
            scan.to_pylist(progress=True)
        out = tty.getvalue()
        self.assertTrue(out.startswith("\rscan: "), out[:80])
        self.assertIn(" of ", out)
        # Cleared at the end: spaces over the widest line, back to its start.
        last = out.split("\r")
        self.assertEqual(last[-1], "")
        self.assertEqual(last[-2].strip(), "")
        self.assertGreaterEqual(len(last[-2]), len(last[-3].rstrip()))

    def test_a_quick_call_draws_nothing(self):
        tty = _TTY()
        with mock.patch.object(sys, "stderr", tty):
            fixture("duckdb_uuid").open().scan().to_pylist(progress=True)
        self.assertEqual(tty.getvalue(), "")

    def test_refuses_what_is_not_a_callable(self):
        with self.assertRaises(TypeError):
            fixture("duckdb_uuid").open().scan().to_pylist(progress="yes")


if __name__ == "__main__":
    unittest.main()
