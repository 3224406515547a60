"""t.maintenance: the table-maintenance actions (floe_table_maintain) on a
table written through floe's Python API. Each returns a dict of what it
did and leaves the rows as they were; options are checked strictly;
write.statistics.on-commit keeps statistics current after appends."""

import datetime
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import floe  # noqa: E402
from floe import FloeError, Status  # noqa: E402

SCHEMA = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "id", "required": True, "type": "long"},
    {"id": 2, "name": "kind", "required": False, "type": "string"},
]}


def rows_of(t):
    return sorted(t.scan().to_pylist(), key=lambda r: r["id"])


class MaintenanceTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="floe-py-maintain-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def table(self, properties=None):
        """Four appends of five rows, a merge-on-read delete of one row of
        the first file, and a copy-on-write delete of the rest of it: that
        position delete now applies to nothing."""
        t = floe.Table.create(os.path.join(self.dir, "t"), SCHEMA, format_version=2, properties=properties)
        for i in range(4):
            t.append([{"id": 5 * i + j, "kind": f"k{j}"} for j in range(5)])
        t.delete_rows("id = 2", delete_mode="merge-on-read")
        t.delete_rows("id < 5", delete_mode="copy-on-write")
        return t

    def test_actions(self):
        t = self.table()
        before = rows_of(t)
        self.assertEqual(len(before), 15)

        res = t.maintenance.remove_dangling_deletes()
        self.assertTrue(res["committed"])
        self.assertEqual(len(res["removed_delete_files"]), 1)
        self.assertEqual(res["snapshot_id"], t.current_snapshot_id)

        res = t.maintenance.rewrite_manifests(properties={"job": "m"})
        self.assertTrue(res["committed"])
        self.assertGreaterEqual(res["rewritten_manifests_count"], 2)
        self.assertEqual(t.metadata["snapshots"][-1]["summary"]["job"], "m")

        seen = []
        res = t.maintenance.rewrite_data_files(min_input_files=2, progress=seen.append)
        self.assertEqual((res["rewritten_data_files_count"], res["added_data_files_count"]), (3, 1))
        self.assertEqual([(p["action"], p["done"], p["total"]) for p in seen], [("rewrite_data_files", 1, 1)])
        self.assertEqual(seen[0]["group"]["input_files"], 3)

        seen = []
        res = t.maintenance.compute_statistics(columns=["id", "kind"], progress=seen.append)
        self.assertEqual(res["ndv"], {"id": 15, "kind": 5})
        self.assertEqual(res["snapshot_id"], t.current_snapshot_id)
        self.assertEqual([s["statistics-path"] for s in t.metadata["statistics"]], [res["statistics_path"]])
        self.assertEqual(len(seen), 1)

        stray = os.path.join(self.dir, "t", "data", "left-by-a-crash.parquet")
        with open(stray, "wb") as f:
            f.write(b"not committed")
        old = datetime.datetime.now().timestamp() - 5 * 86400
        os.utime(stray, (old, old))
        res = t.maintenance.remove_orphan_files(dry_run=True)
        self.assertTrue(res["dry_run"])
        self.assertEqual([os.path.basename(p) for p in res["orphan_files"]], ["left-by-a-crash.parquet"])
        self.assertTrue(os.path.exists(stray))
        res = t.maintenance.remove_orphan_files(older_than=datetime.timedelta(days=3))
        self.assertEqual(res["deleted_files_count"], 1)
        self.assertFalse(os.path.exists(stray))

        self.assertEqual(rows_of(t), before)

    def test_planner(self):
        t = self.table()
        before = rows_of(t)
        h = t.maintenance.health(skip_orphans=True)
        self.assertEqual(h["dangling_delete_files"], 1)
        self.assertFalse(h["orphans_listed"])
        plan = t.maintenance.plan(skip_orphans=True)
        self.assertTrue(plan["dry_run"])
        planned = [a["action"] for a in plan["actions"]]
        self.assertIn("remove_dangling_deletes", planned)
        self.assertIn("rewrite_manifests", planned)
        self.assertEqual(t.maintenance.health(skip_orphans=True)["dangling_delete_files"], 1)
        done = t.maintenance.maintain(skip_orphans=True)
        self.assertEqual([a["action"] for a in done["actions"]], planned)
        self.assertTrue(all("result" in a for a in done["actions"]))
        self.assertEqual(t.maintenance.health(skip_orphans=True)["dangling_delete_files"], 0)
        self.assertEqual(rows_of(t), before)
        self.assertEqual(t.maintenance.maintain(skip_orphans=True)["actions"], [])
        with self.assertRaises(FloeError) as e:
            t.maintenance._run("maintain", {"dry_runn": True})
        self.assertIn("dry_run", str(e.exception))

    def test_rewrite_strategy(self):
        """strategy, sort_order_id and zorder_columns reach compaction: a
        sort rewrite writes the rows in the table's sort order (id
        descending), a z-order rewrite keeps the rows, and what the
        strategies refuse is refused."""
        t = floe.Table.create(os.path.join(self.dir, "s"), SCHEMA, format_version=2)
        ids = [7, 3, 11, 0, 14, 5, 9, 1, 12, 6, 2, 13, 4, 10, 8]
        for i in range(3):
            t.append([{"id": n, "kind": f"k{n % 3}"} for n in ids[5 * i:5 * i + 5]])
        with t.update_sort_order() as o:
            o.desc("id")
        before = rows_of(t)
        res = t.maintenance.rewrite_data_files(strategy="sort", rewrite_all=True)
        self.assertEqual(res["added_data_files_count"], 1)
        self.assertEqual([r["id"] for r in t.scan().to_pylist()], sorted(ids, reverse=True))
        t.maintenance.rewrite_data_files(strategy="zorder", zorder_columns=["id", "kind"], rewrite_all=True)
        self.assertEqual(rows_of(t), before)
        with self.assertRaises(FloeError) as e:
            t.maintenance.rewrite_data_files(strategy="sort", sort_order_id=99, rewrite_all=True)
        self.assertEqual(e.exception.code, Status.NOT_FOUND)
        with self.assertRaises(FloeError) as e:
            t.maintenance.rewrite_data_files(zorder_columns=["id"], rewrite_all=True)
        self.assertEqual(e.exception.code, Status.INVALID_ARGUMENT)
        with self.assertRaises(TypeError):
            t.maintenance.rewrite_data_files(strategy="zorder", zorder_columns="id")

    def test_partition_statistics_stale(self):
        """A partitioned table with column sketches of its current snapshot
        but no partition statistics file: health names them stale, plan()
        and maintain() compute that file alone, and then nothing is
        stale."""
        t = floe.Table.create(os.path.join(self.dir, "p"), SCHEMA, format_version=2)
        with t.update_spec() as u:
            u.add_identity("kind")
        t.append([{"id": n, "kind": f"k{n % 3}"} for n in range(12)])
        h = t.maintenance.health(skip_orphans=True)
        self.assertNotIn("stale_statistics", h)  # keeps no statistics yet
        t.maintenance.compute_statistics(partition_statistics=False)
        h = t.maintenance.health(skip_orphans=True)
        self.assertTrue(h["statistics_current"])
        self.assertFalse(h["partition_statistics_current"])
        self.assertEqual(h["stale_statistics"], ["partition_statistics"])
        self.assertEqual([a["action"] for a in t.maintenance.plan(skip_orphans=True)["actions"]],
                         ["compute_statistics"])
        done = t.maintenance.maintain(skip_orphans=True)
        self.assertEqual([a["action"] for a in done["actions"]], ["compute_statistics"])
        result = done["actions"][0]["result"]
        self.assertNotIn("ndv", result)
        self.assertEqual(result["partition-statistics"]["partitions"], 3)
        h = t.maintenance.health(skip_orphans=True)
        self.assertTrue(h["partition_statistics_current"])
        self.assertNotIn("stale_statistics", h)
        self.assertEqual(t.maintenance.maintain(skip_orphans=True)["actions"], [])

    def test_planner_delete_thresholds(self):
        """min_equality_delete_files and min_position_delete_files reach
        the planner: with an equality delete file and two position delete
        files, the defaults (1, 5) plan the conversion and not the merge;
        -1 and 2 plan the merge and not the conversion, in plan() as in
        maintain()."""
        t = floe.Table.create(os.path.join(self.dir, "d"), SCHEMA, format_version=2)
        # Ten rows a file and one deleted in each: too few deleted for
        # compaction (its delete ratio is 0.3), which would apply them all.
        for i in range(3):
            t.append([{"id": 10 * i + j, "kind": "a"} for j in range(10)])
        t.delete_rows("id = 0", delete_mode="merge-on-read")
        t.delete_rows("id = 10", delete_mode="merge-on-read")
        t.upsert([{"id": 25, "kind": "new"}], join_cols=["id"], mode="equality-deletes")
        before = rows_of(t)

        def actions(rep):
            return [a["action"] for a in rep["actions"]]

        planned = actions(t.maintenance.plan(skip_orphans=True))
        self.assertIn("convert_equality_deletes", planned)
        self.assertNotIn("rewrite_position_deletes", planned)
        planned = actions(t.maintenance.plan(skip_orphans=True, min_equality_delete_files=-1,
                                             min_position_delete_files=2))
        self.assertNotIn("convert_equality_deletes", planned)
        self.assertIn("rewrite_position_deletes", planned)
        done = t.maintenance.maintain(skip_orphans=True, min_equality_delete_files=-1, min_position_delete_files=2)
        self.assertEqual(actions(done), planned)
        h = t.maintenance.health(skip_orphans=True)
        self.assertEqual(h["equality_delete_files_applied"], 1)
        self.assertEqual(h["position_delete_files_to_rewrite"], 0)
        self.assertEqual(rows_of(t), before)

    def test_delete_rewrites(self):
        t = floe.Table.create(os.path.join(self.dir, "d"), SCHEMA, format_version=2)
        for i in range(3):
            t.append([{"id": 10 * i + j, "kind": f"k{j}"} for j in range(10)])
        for i in (1, 12, 25):
            t.delete_rows(f"id = {i}", delete_mode="merge-on-read")
        before = rows_of(t)
        self.assertEqual(len(before), 27)
        res = t.maintenance.rewrite_position_deletes()
        self.assertTrue(res["committed"])
        self.assertEqual(len(res["removed_delete_files"]), 3)
        self.assertEqual(rows_of(t), before)
        self.assertEqual(t.metadata["snapshots"][-1]["summary"]["operation"], "replace")
        res = t.maintenance.convert_equality_deletes()
        self.assertFalse(res["committed"])  # no equality delete to convert
        self.assertEqual(rows_of(t), before)

    def test_refusals(self):
        t = self.table()
        with self.assertRaises(FloeError) as e:
            t.maintenance.remove_orphan_files(older_than=datetime.timedelta(minutes=5))
        self.assertEqual(e.exception.code, Status.INVALID_ARGUMENT)
        self.assertIn("force", str(e.exception))
        with self.assertRaises(FloeError) as e:
            t.maintenance.compute_statistics(columns=["nope"])
        self.assertIn("nope", str(e.exception))
        with self.assertRaises(FloeError) as e:
            t.maintenance.rewrite_data_files(row_filter="id <")
        self.assertEqual(e.exception.code, Status.INVALID_ARGUMENT)
        with self.assertRaises(TypeError):
            t.maintenance.compute_statistics(columns="id")

    def test_statistics_on_commit(self):
        t = self.table(properties={"write.statistics.on-commit": "true"})
        t.append([{"id": 100, "kind": "new"}])
        stats = {s["snapshot-id"] for s in t.metadata.get("statistics", [])}
        self.assertIn(t.current_snapshot_id, stats)
        res = t.maintenance.compute_statistics(columns=["kind"])
        self.assertEqual(res["ndv"], {"kind": 6})

    def test_partition_statistics(self):
        t = self.table()
        res = t.maintenance.compute_statistics()
        self.assertNotIn("partition_statistics", res)  # unpartitioned
        with t.update_spec() as u:
            u.add_identity("kind")
        t.append([{"id": 100, "kind": "k0"}, {"id": 101, "kind": "k9"}])
        res = t.maintenance.compute_statistics(ndv=False)
        self.assertNotIn("ndv", res)
        # the files before the spec change are one row, k0 and k9 two more
        self.assertEqual(res["partition_statistics"]["partitions"], 3)
        self.assertEqual([s["statistics-path"] for s in t.metadata["partition-statistics"]],
                         [res["partition_statistics"]["statistics_path"]])
        with self.assertRaises(FloeError) as e:
            t.maintenance.compute_statistics(ndv=False, partition_statistics=False)
        self.assertEqual(e.exception.code, Status.INVALID_ARGUMENT)


if __name__ == "__main__":
    unittest.main()
