"""floe.dask.rewrite_data_files on a real distributed.LocalCluster with 2
worker processes: a table of many small files with position deletes is
compacted by the workers and committed by the client in one snapshot; the
rows stay the same (as a multiset), the files drop to one per partition,
no delete file is left, and the result matches t.maintenance's local
compaction of an identical table. Skipped without dask.distributed
(Debian's python3-distributed; make test-dask runs it)."""

import logging
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import floe  # noqa: E402
from floe import _rewrite_distributed  # noqa: E402

try:
    import distributed
    import floe.dask as fdask
except ImportError:  # pragma: no cover
    if os.environ.get("FLOE_REQUIRE_DASK"):
        raise
    distributed = None

SCHEMA = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "id", "required": False, "type": "long"},
    {"id": 2, "name": "kind", "required": False, "type": "string"},
    {"id": 3, "name": "x", "required": False, "type": "double"},
]}


def small_files_table(loc):
    """40 appends of 15 rows (a small file in each of 3 partitions each),
    then merge-on-read deletes (position delete files) of ids below 40 and
    of kind b's ids above 500."""
    with floe.Table.create(loc, SCHEMA, partition_by=["kind"],
                           properties={"format-version": "2"}) as t:
        for a in range(40):
            t.append([{"id": a * 15 + i, "kind": "abc"[i % 3], "x": (a * 15 + i) / 8 if i % 5 else None}
                      for i in range(15)])
        t.delete_rows("id < 40", delete_mode="merge-on-read")
        t.delete_rows("kind = 'b' and id > 500", delete_mode="merge-on-read")


def rows(t):
    return sorted(t.scan().to_pylist(), key=lambda r: r["id"])


def data_and_delete_files(t):
    tasks = t.scan().plan_files()
    return len(tasks), {d["path"] for task in tasks for d in task.delete_files}


def data_file_names(loc):
    return {os.path.join(r, n) for r, _, ns in os.walk(os.path.join(loc, "data")) for n in ns}


@unittest.skipIf(distributed is None, "dask.distributed is not installed")
class DaskRewriteTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # Worker processes are spawned (distributed's default), never
        # forked from this process, which has loaded libfloe.
        cls.cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                               host="127.0.0.1", dashboard_address=None,
                                               silence_logs=logging.CRITICAL)
        cls.client = distributed.Client(cls.cluster)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.close()

    def test_compaction_on_workers_equals_local(self):
        with tempfile.TemporaryDirectory() as d:
            loc, ref = os.path.join(d, "t"), os.path.join(d, "ref")
            small_files_table(loc)
            small_files_table(ref)
            with floe.Table.open(loc) as t:
                before = rows(t)
                files_before, deletes_before = data_and_delete_files(t)
                snapshots_before = len(t.snapshots())
            self.assertEqual(len(before), 600 - 40 - sum(1 for i in range(501, 600) if i % 3 == 1))
            self.assertGreaterEqual(files_before, 100)
            self.assertTrue(deletes_before)

            res = fdask.rewrite_data_files(loc, client=self.client, min_input_files=2, token="compact-1")
            with floe.Table.open(ref) as t:
                local = t.maintenance.rewrite_data_files(min_input_files=2)

            with floe.Table.open(loc) as t:
                self.assertEqual(rows(t), before)
                files_after, deletes_after = data_and_delete_files(t)
                self.assertEqual(len(t.snapshots()), snapshots_before + 1)
                snap = t.current_snapshot()
                self.assertEqual(snap.summary["operation"], "replace")
                self.assertEqual(res["snapshot_ids"], [t.current_snapshot_id])
            self.assertEqual(files_after, 3)  # one per partition, near the (512 MiB) target
            self.assertEqual(deletes_after, set())
            for key in ("rewritten_data_files_count", "added_data_files_count", "removed_delete_files_count",
                        "rewritten_bytes_count"):
                self.assertEqual(res[key], local[key], key)
            self.assertEqual(res["rewritten_data_files_count"], files_before)
            self.assertEqual(sorted(g["output_files"] for g in res["groups"]), [1, 1, 1])
            self.assertFalse(res["token_found"])

            # The job resubmitted: its token is found, nothing is written.
            names = data_file_names(loc)
            again = fdask.rewrite_data_files(loc, client=self.client, min_input_files=2, token="compact-1")
            self.assertTrue(again["token_found"])
            self.assertEqual(again["snapshot_ids"], res["snapshot_ids"])
            self.assertEqual(data_file_names(loc), names)

    def test_conflicting_delete_commits_nothing_and_leaves_no_file(self):
        # The steps floe.dask runs, with another writer's delete between
        # the workers' rewrite and the commit: CONFLICT, the table as the
        # delete left it, the workers' files deleted.
        with tempfile.TemporaryDirectory() as d:
            loc = os.path.join(d, "t")
            small_files_table(loc)
            with floe.Table.open(loc) as t:
                plan = _rewrite_distributed.plan_rewrite(t, {"min_input_files": 2})
                where = t.metadata_location
                names = data_file_names(loc)
                results = self.client.gather(self.client.map(fdask._rewrite_group, plan["groups"],
                                                             metadata_location=where, open_options={}, pure=False))
                written = data_file_names(loc) - names
                self.assertEqual(len(written), 3)  # a file per partition's group
                with floe.Table.open(loc) as other:
                    other.delete_rows("id = 300", delete_mode="merge-on-read")
                    head = other.current_snapshot_id
                with self.assertRaises(floe.FloeError) as cm:
                    _rewrite_distributed.commit_rewrite(t, results, discard_refused=True)
                self.assertEqual(cm.exception.code, floe.Status.CONFLICT)
            with floe.Table.open(loc) as t:
                self.assertEqual(t.current_snapshot_id, head)
                self.assertEqual(len(t.scan().to_pylist()), len(rows(t)))
            self.assertEqual(written & data_file_names(loc), set())

    def test_catalog_table_compacts_through_its_catalog(self):
        # A SQL catalog's table: the workers open the plan's metadata file,
        # the replace snapshot lands in the catalog's history, and a later
        # catalog commit keeps the compacted rows.
        with tempfile.TemporaryDirectory() as d:
            cat = floe.load_catalog("c", uri="sqlite:///" + os.path.join(d, "c.db"), warehouse=os.path.join(d, "wh"))
            self.addCleanup(cat.close)
            cat.create_namespace("db")
            cat.create_table("db.a", SCHEMA).close()
            with cat.load_table("db.a") as t:
                for a in range(8):
                    t.append([{"id": a * 10 + i, "kind": "ab"[i % 2], "x": float(i)} for i in range(10)])
                t.delete_rows("id < 5", delete_mode="merge-on-read")
                want = rows(t)
            res = fdask.rewrite_data_files((cat, "db.a"), client=self.client, min_input_files=2)
            self.assertEqual(res["rewritten_data_files_count"], 8)
            self.assertEqual(res["added_data_files_count"], 1)
            with cat.load_table("db.a") as t:
                self.assertEqual(t.current_snapshot_id, res["snapshot_ids"][0])
                self.assertEqual(rows(t), want)
                self.assertEqual(data_and_delete_files(t), (1, set()))
                metadata_dir = os.path.dirname(t.metadata_location.replace("file://", ""))
                t.append([{"id": 1000, "kind": "c", "x": None}])
            self.assertTrue(all(n[0].isdigit() and "-" in n for n in os.listdir(metadata_dir)
                                if n.endswith(".metadata.json")), os.listdir(metadata_dir))
            with cat.load_table("db.a") as t:
                self.assertEqual(len(rows(t)), len(want) + 1)

    def test_partial_progress_commits_groups_as_they_finish(self):
        # Three partitions' groups in at most three commits, each with its
        # own token derived from the run's; the rows stay.
        with tempfile.TemporaryDirectory() as d:
            loc = os.path.join(d, "t")
            small_files_table(loc)
            with floe.Table.open(loc) as t:
                before = rows(t)
                snapshots_before = len(t.snapshots())
            res = fdask.rewrite_data_files(loc, client=self.client, min_input_files=2, token="nightly",
                                           partial_progress_enabled=True, partial_progress_max_commits=3)
            self.assertEqual(len(res["snapshot_ids"]), 3)
            self.assertEqual(sorted(g["snapshot_id"] for g in res["groups"]), sorted(res["snapshot_ids"]))
            self.assertTrue(all("error" not in g for g in res["groups"]))
            self.assertEqual(res["added_data_files_count"], 3)
            with floe.Table.open(loc) as t:
                self.assertEqual(rows(t), before)
                self.assertEqual(data_and_delete_files(t), (3, set()))
                snaps = t.snapshots()
                self.assertEqual(len(snaps), snapshots_before + 3)
                tokens = {s.summary.get("floe.commit-token") for s in snaps[-3:]}
            self.assertEqual(len(tokens), 3)
            self.assertTrue(all(tok.startswith("nightly/") for tok in tokens), tokens)
            # Without a client: the current scheduler, one commit at most
            # per group again; nothing is left to compact.
            again = fdask.rewrite_data_files(loc, min_input_files=2, partial_progress_enabled=True)
            self.assertEqual((again["groups"], again["snapshot_ids"]), ([], []))

    def test_progress_callback_is_refused(self):
        with self.assertRaises(ValueError):
            fdask.rewrite_data_files("/nonexistent", client=self.client, progress=print)


class RewriteEntryPointsTest(unittest.TestCase):
    """The C entry points' argument checks (no Dask needed)."""

    def test_null_arguments_are_refused(self):
        import ctypes

        from floe._lib import library

        lib = library()
        out, size = ctypes.c_void_p(), ctypes.c_size_t()
        with tempfile.TemporaryDirectory() as d:
            loc = os.path.join(d, "t")
            floe.Table.create(loc, SCHEMA).close()
            with floe.Table.open(loc) as t:
                for call, what in [
                    (lambda: lib.floe_rewrite_plan(None, None, ctypes.byref(out)), "table is NULL"),
                    (lambda: lib.floe_rewrite_plan(t._handle, None, None), "plan_json is NULL"),
                    (lambda: lib.floe_rewrite_group(t._handle, None, 0, None, ctypes.byref(out), ctypes.byref(size)),
                     "group is NULL"),
                    (lambda: lib.floe_rewrite_group(t._handle, b"{}", 2, None, ctypes.byref(out), None),
                     "result_len is NULL"),
                    (lambda: lib.floe_rewrite_commit(t._handle, None, 0, None, ctypes.byref(out)), "results is NULL"),
                    (lambda: lib.floe_rewrite_discard(None, b"[]", 2), "table is NULL"),
                ]:
                    self.assertEqual(call(), floe.Status.INVALID_ARGUMENT, what)
                    self.assertIn(what, lib.floe_last_error().decode())
                # An empty table plans no group.
                self.assertEqual(_rewrite_distributed.plan_rewrite(t, {})["groups"], [])


if __name__ == "__main__":
    unittest.main()
