"""Metadata tables read as tasks (t.inspect.files(...).plan_tasks()):
every task, read alone (also after pickling or a trip through bytes),
gives the metadata table's rows in order, on tables with deletes and with
several snapshots and manifests."""

import json
import os
import pickle
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import floe  # noqa: E402
from floe import FloeError, Status  # noqa: E402

from fixtures import fixture  # noqa: E402

DELETES = "impala_iceberg_v2_partitioned_position_deletes"
SIX = "impala_iceberg_v2_positional_not_all_data_files_have_delete_files"


class InspectTasksTest(unittest.TestCase):
    def test_tasks_read_the_metadata_table(self):
        for name in (DELETES, SIX):
            f = fixture(name)
            t = f.open()
            for kind in ("files", "data_files", "delete_files", "entries", "all_files", "all_entries"):
                with self.subTest(table=name, kind=kind):
                    result = t.inspect.read(kind)
                    tasks = result.plan_tasks(task_size=1)
                    want = result.to_pylist()
                    got = [row for task in tasks for row in task.to_pylist()]
                    self.assertEqual(got, want)
                    self.assertTrue(all(task.kind == kind for task in tasks))
                    if kind in ("files", "entries"):
                        self.assertGreaterEqual(len(tasks), 2)

    def test_tasks_cover_the_current_manifests(self):
        f = fixture(DELETES)
        t = f.open()
        tasks = t.inspect.files().plan_tasks(task_size=1)
        want = [r["path"] for r in t.inspect.manifests().to_pylist()]
        self.assertEqual([p for task in tasks for p in task.manifest_paths], want)
        self.assertEqual([len(task.manifest_paths) for task in tasks], [1] * len(want))
        # The default size packs the fixture's small manifests together.
        packed = t.inspect.files().plan_tasks()
        self.assertEqual(len(packed), 1)
        self.assertEqual(packed[0].manifest_paths, want)

    def test_tasks_carry_columns_filter_and_limit(self):
        t = fixture(DELETES).open()
        result = t.inspect.files(row_filter="content = 1", selected_fields=("file_path", "record_count"))
        tasks = result.plan_tasks(task_size=1)
        rows = [row for task in tasks for row in task.to_pylist()]
        self.assertEqual(rows, result.to_pylist())
        self.assertTrue(rows)
        self.assertEqual(set(rows[0]), {"file_path", "record_count"})
        # Only delete manifests hold files of content 1: the plan pruned
        # the data manifests.
        self.assertTrue(all(m["content"] == 1 for task in tasks for m in task.info["manifests"]))
        limited = t.inspect.entries(limit=1).plan_tasks(task_size=1)
        self.assertGreaterEqual(len(limited), 2)
        self.assertEqual([len(task.to_pylist()) for task in limited], [1] * len(limited))
        self.assertEqual(t.inspect.files(limit=0).plan_tasks(), [])

    def test_tasks_travel(self):
        f = fixture(DELETES)
        t = f.open()
        tasks = t.inspect.entries().plan_tasks(task_size=1)
        want = [row for task in tasks for row in task.to_pylist()]
        moved = [pickle.loads(pickle.dumps(task)) for task in tasks]
        self.assertEqual(moved, tasks)
        self.assertEqual([row for task in moved for row in task.to_pylist()], want)
        rebuilt = [floe.InspectTask.from_bytes(task.to_bytes(), location_map=f.location_map) for task in tasks]
        self.assertEqual([row for task in rebuilt for row in task.to_pylist()], want)
        json.loads(tasks[0].to_bytes())  # plain JSON
        # Without the location map the manifests are not found where the
        # metadata says they are.
        with self.assertRaises(FloeError):
            floe.InspectTask.from_bytes(tasks[0].to_bytes()).to_pylist()

    def test_kinds_without_tasks(self):
        t = fixture(DELETES).open()
        for kind in ("snapshots", "manifests", "partitions", "position_deletes"):
            with self.subTest(kind=kind):
                with self.assertRaises(FloeError) as cm:
                    t.inspect.read(kind).plan_tasks()
                self.assertEqual(cm.exception.code, Status.UNSUPPORTED)


if __name__ == "__main__":
    unittest.main()
