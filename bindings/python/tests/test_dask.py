"""floe.dask on a real distributed.LocalCluster with 2 worker processes:
reading a fixture table and a generated multi-file table (rows equal a
local scan), writing one (read back by floe; a resubmitted job with the
same token commits nothing). Skipped without dask.distributed (Debian's
python3-distributed; make test runs these with Debian's python3)."""

import logging
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import floe  # noqa: E402

from fixtures import fixture  # noqa: E402

try:
    import dask  # noqa: F401
    import dask.dataframe as dd
    import distributed
    import pandas as pd
    import floe.dask as fdask
except ImportError:  # pragma: no cover
    if os.environ.get("FLOE_REQUIRE_DASK"):
        raise  # .ci/run installs it: a missing Dask is a failure there
    distributed = None

SCHEMA = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "id", "required": False, "type": "long"},
    {"id": 2, "name": "kind", "required": False, "type": "string"},
    {"id": 3, "name": "x", "required": False, "type": "double"},
]}


@unittest.skipIf(distributed is None, "dask.distributed is not installed")
class DaskTest(unittest.TestCase):
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

    def test_read_fixture_equals_local_scan(self):
        f = fixture("impala_iceberg_partitioned")
        ddf = fdask.read_table(f.location, columns=["id", "action"], row_filter="id > 4",
                               location_map=f.location_map, split_size=1)
        self.assertGreater(ddf.npartitions, 1)
        got = ddf.compute().sort_values("id").reset_index(drop=True)
        with f.open() as t:
            want = sorted(t.scan(selected_fields=["id", "action"], row_filter="id > 4").to_pylist(), key=lambda r: r["id"])
        self.assertEqual(got.to_dict("records"), want)
        self.assertEqual(len(got), 16)

    def test_read_every_column_with_types(self):
        # impala_iceberg_partitioned: id int, user string, action string,
        # event_time timestamptz.
        f = fixture("impala_iceberg_partitioned")
        ddf = fdask.read_table(f.location, location_map=f.location_map, split_size=1)
        self.assertEqual(str(ddf.dtypes["event_time"]), "datetime64[ns, UTC]")
        self.assertEqual(str(ddf.dtypes["id"]), "Int64")
        got = ddf.compute().sort_values("id").reset_index(drop=True)
        self.assertEqual(str(got.dtypes["event_time"]), "datetime64[ns, UTC]")
        with f.open() as t:
            want = sorted(t.scan().to_pylist(), key=lambda r: r["id"])
        self.assertEqual(len(got), 20)
        for row, w in zip(got.to_dict("records"), want):
            self.assertEqual({k: (v.to_pydatetime() if hasattr(v, "to_pydatetime") else v) for k, v in row.items()}, w)

    def test_generated_table_round_trip_and_token(self):
        with tempfile.TemporaryDirectory() as d:
            loc = os.path.join(d, "t")
            floe.Table.create(loc, SCHEMA, partition_by=["kind"]).close()
            rows = [{"id": i, "kind": "abc"[i % 3], "x": i / 4 if i % 7 else None} for i in range(3000)]
            ddf = dd.from_pandas(pd.DataFrame(rows), npartitions=4)
            sid = fdask.write_table(ddf, loc, token="job-1")
            with floe.Table.open(loc) as t:
                self.assertEqual(t.current_snapshot_id, sid)
                self.assertEqual(len(t.snapshots()), 1)
                files = t.scan().plan_files()
                self.assertGreaterEqual(len(files), 4)  # every worker wrote files, per partition value
                local = sorted(t.scan().to_pylist(), key=lambda r: r["id"])
            self.assertEqual(local, rows)
            # Read back through dask, one partition per file.
            back = fdask.read_table(loc, split_size=1).compute().sort_values("id").reset_index(drop=True)
            self.assertEqual(len(back), 3000)
            self.assertEqual(back["id"].tolist(), list(range(3000)))
            self.assertEqual(back["x"].isna().sum(), sum(1 for r in rows if r["x"] is None))
            # The same job again: nothing written, nothing committed.
            again = fdask.write_table(ddf, loc, token="job-1")
            self.assertEqual(again, sid)
            with floe.Table.open(loc) as t:
                self.assertEqual(len(t.snapshots()), 1)
            data_files = [os.path.join(r, n) for r, _, ns in os.walk(os.path.join(loc, "data")) for n in ns]
            self.assertEqual(len(data_files), len(files))

    def test_replace_partitions(self):
        with tempfile.TemporaryDirectory() as d:
            loc = os.path.join(d, "t")
            with floe.Table.create(loc, SCHEMA, partition_by=["kind"]) as t:
                t.append([{"id": i, "kind": "abc"[i % 3], "x": 1.0} for i in range(30)])
            # New rows for kinds a and b only: c keeps its 10 old rows.
            rows = [{"id": 1000 + i, "kind": "ab"[i % 2], "x": 2.0} for i in range(400)]
            ddf = dd.from_pandas(pd.DataFrame(rows), npartitions=3)
            sid = fdask.write_table(ddf, loc, token="replace-1", mode="replace_partitions")
            with floe.Table.open(loc) as t:
                self.assertEqual(t.current_snapshot_id, sid)
                snap = t.current_snapshot()
                self.assertEqual(snap.summary["operation"], "overwrite")
                got = sorted(t.scan().to_pylist(), key=lambda r: r["id"])
            want = sorted([{"id": i, "kind": "c", "x": 1.0} for i in range(30) if i % 3 == 2] + rows,
                          key=lambda r: r["id"])
            self.assertEqual(got, want)
            # Resubmitted: nothing new.
            self.assertEqual(fdask.write_table(ddf, loc, token="replace-1", mode="replace_partitions"), sid)
            with floe.Table.open(loc) as t:
                self.assertEqual(len(t.snapshots()), 2)

    def test_replace_partitions_conflict_commits_nothing(self):
        # Another writer replaces kind "a" while the job's workers write:
        # the job's commit is refused, and the table keeps the other
        # writer's rows.
        with tempfile.TemporaryDirectory() as d:
            loc = os.path.join(d, "t")
            with floe.Table.create(loc, SCHEMA, partition_by=["kind"]) as t:
                t.append([{"id": 1, "kind": "a", "x": 1.0}])
            other = floe.Table.open(loc)

            def concurrent_replace(df):
                if len(df):
                    other.replace_partitions([{"id": 2, "kind": "a", "x": 9.0}])
                return df

            ddf = dd.from_pandas(pd.DataFrame([{"id": 3, "kind": "a", "x": 3.0}]), npartitions=1)
            # The other writer commits on the client between the job's open
            # and its commit (the map runs when the job computes).
            ddf = ddf.map_partitions(concurrent_replace, meta=ddf._meta)
            with self.assertRaises(floe.FloeError) as caught:
                with dask.config.set(scheduler="sync"):
                    fdask.write_table(ddf, loc, token="replace-2", mode="replace_partitions")
            other.close()
            self.assertEqual(caught.exception.code, floe.Status.CONFLICT)
            with floe.Table.open(loc) as t:
                self.assertEqual(t.scan().to_pylist(), [{"id": 2, "kind": "a", "x": 9.0}])

    def test_refused_commit_leaves_no_file(self):
        # The job's workers write their files, then the commit is refused
        # (another writer replaced the partition meanwhile): the job
        # deletes what its workers wrote, so the only data files left are
        # those a snapshot references.
        with tempfile.TemporaryDirectory() as d:
            loc = os.path.join(d, "t")
            with floe.Table.create(loc, SCHEMA, partition_by=["kind"]) as t:
                t.append([{"id": 1, "kind": "a", "x": 1.0}])
            other = floe.Table.open(loc)
            self.addCleanup(other.close)

            def concurrent_replace(df):
                if len(df):
                    other.replace_partitions([{"id": 2, "kind": "a", "x": 9.0}])
                return df

            rows = pd.DataFrame([{"id": 10 + i, "kind": "ab"[i % 2], "x": 3.0} for i in range(40)])
            ddf = dd.from_pandas(rows, npartitions=2).map_partitions(concurrent_replace, meta=rows.iloc[:0])
            with self.assertRaises(floe.FloeError) as caught:
                with dask.config.set(scheduler="sync"):
                    fdask.write_table(ddf, loc, token="refused-1", mode="replace_partitions")
            self.assertEqual(caught.exception.code, floe.Status.CONFLICT)
            self.assertEqual(_data_files(loc), _referenced_files(loc))
            self.assertEqual(len(_data_files(loc)), 3)  # the first append's and two replaces'

    def test_token_found_at_commit_leaves_no_file(self):
        # Two runs of one job: the other run commits the token while this
        # one's workers write. This run's commit finds the token, returns
        # the other run's snapshot, and deletes what its workers wrote.
        with tempfile.TemporaryDirectory() as d:
            loc = os.path.join(d, "t")
            floe.Table.create(loc, SCHEMA).close()
            other = floe.Table.open(loc)
            self.addCleanup(other.close)
            rows = pd.DataFrame([{"id": i, "kind": "b", "x": 2.0} for i in range(30)])
            for n, mode in enumerate(("append", "replace_partitions")):
                with self.subTest(mode=mode):
                    token, committed = "twice-" + mode, []

                    def other_run(df):
                        if len(df) and not committed:
                            committed.append(other.append([{"id": n, "kind": "a", "x": 1.0}], token=token))
                        return df

                    ddf = dd.from_pandas(rows, npartitions=3).map_partitions(other_run, meta=rows.iloc[:0])
                    with dask.config.set(scheduler="sync"):
                        sid = fdask.write_table(ddf, loc, token=token, mode=mode)
                    self.assertEqual(sid, committed[0])
                    self.assertEqual(_data_files(loc), _referenced_files(loc))
                    with floe.Table.open(loc) as t:
                        self.assertEqual(sorted(r["id"] for r in t.scan().to_pylist()), list(range(n + 1)))

    def test_refused_partition_leaves_no_file(self):
        # One partition's rows do not fit the table (a string in a double
        # column): its worker writes nothing, the job raises that error,
        # commits nothing, and the files the other partitions' workers
        # wrote are deleted.
        with tempfile.TemporaryDirectory() as d:
            loc = os.path.join(d, "t")
            with floe.Table.create(loc, SCHEMA) as t:
                t.append([{"id": 0, "kind": "a", "x": 0.0}])
            before = _data_files(loc)
            rows = [{"id": i, "kind": "b", "x": float(i)} for i in range(1, 30)]
            rows.append({"id": 30, "kind": "b", "x": "not a number"})
            ddf = dd.from_pandas(pd.DataFrame(rows, dtype=object), npartitions=3, sort=False)
            with self.assertRaises(floe.FloeError) as caught:
                fdask.write_table(ddf, loc, token="bad-partition")
            self.assertEqual(caught.exception.code, floe.Status.INVALID_ARGUMENT)
            self.assertEqual(_data_files(loc), before)
            with floe.Table.open(loc) as t:
                self.assertEqual(len(t.snapshots()), 1)

    def test_append_files_discards_files_its_commit_did_not_take(self):
        # The commit itself tells a found token from its own snapshot: a
        # handle that never saw the other attempt's snapshot gets its id
        # back, and with discard_refused its files go; without it they stay
        # (the files might be someone else's). discard_files deletes the
        # rest, and refuses files a snapshot references.
        with tempfile.TemporaryDirectory() as d:
            loc = os.path.join(d, "t")
            floe.Table.create(loc, SCHEMA).close()
            with floe.Table.open(loc) as stale, floe.Table.open(loc) as other:
                kept = stale.write_files([{"id": 1, "kind": "a", "x": 1.0}])
                files = stale.write_files([{"id": 2, "kind": "a", "x": 1.0}])
                sid = other.append([{"id": 3, "kind": "a", "x": 1.0}], token="once")
                self.assertEqual(stale.append_files(kept, token="once"), sid)
                self.assertEqual(len(_data_files(loc)), 3)
                self.assertEqual(stale.append_files(files, token="once", discard_refused=True), sid)
                self.assertEqual(len(_data_files(loc)), 2)
                stale.discard_files(kept)
                stale.discard_files(kept)  # again: nothing left to delete is fine
                self.assertEqual(_data_files(loc), _referenced_files(loc))
                taken = other.write_files([{"id": 4, "kind": "a", "x": 1.0}])
                other.append_files(taken, discard_refused=True)
                with self.assertRaises(floe.FloeError) as caught:
                    stale.discard_files(taken)
                self.assertEqual(caught.exception.code, floe.Status.CONFLICT)
                self.assertEqual(_data_files(loc), _referenced_files(loc))
                self.assertEqual(len(_data_files(loc)), 2)

    def test_catalog_owned_path_commit_leaves_no_file(self):
        # A path commit into a catalog's table is refused after the workers
        # wrote: their files go too.
        with tempfile.TemporaryDirectory() as d:
            cat = floe.load_catalog("c", uri="sqlite:///" + os.path.join(d, "c.db"), warehouse=os.path.join(d, "wh"))
            self.addCleanup(cat.close)
            cat.create_namespace("db")
            with cat.create_table("db.a", SCHEMA) as t:
                t.append([{"id": 1, "kind": "a", "x": 1.0}])
                location = t.location().replace("file://", "")
            before = _data_files(location)
            ddf = dd.from_pandas(pd.DataFrame([{"id": i, "kind": "b", "x": 2.0} for i in range(20)]), npartitions=2)
            with self.assertRaises(floe.FloeError):
                fdask.write_table(ddf, location, token="around")
            self.assertEqual(_data_files(location), before)

    def test_catalog_table_commits_through_its_catalog(self):
        # A SQL catalog's table written by Dask: the snapshot lands in the
        # catalog's history (no metadata file committed by path beside
        # the catalog's), a later catalog commit keeps the Dask rows, and
        # a resubmitted job with the same token commits nothing.
        with tempfile.TemporaryDirectory() as d:
            cat = floe.load_catalog("c", uri="sqlite:///" + os.path.join(d, "c.db"), warehouse=os.path.join(d, "wh"))
            self.addCleanup(cat.close)
            cat.create_namespace("db")
            cat.create_table("db.a", SCHEMA).close()
            rows = [{"id": i, "kind": "ab"[i % 2], "x": float(i)} for i in range(200)]
            ddf = dd.from_pandas(pd.DataFrame(rows), npartitions=3)
            with cat.load_table("db.a") as t:
                sid = fdask.write_table(ddf, t, token="cat-job-1")
            with cat.load_table("db.a") as t:
                self.assertEqual(t.current_snapshot_id, sid)
                metadata_dir = os.path.dirname(t.metadata_location.replace("file://", ""))
            # Every metadata file is the catalog's own (<NNNNN>-<uuid>):
            # none was committed around it by path.
            self.assertTrue(all(n[0].isdigit() and "-" in n for n in os.listdir(metadata_dir)
                                if n.endswith(".metadata.json")), os.listdir(metadata_dir))
            # A later commit through the catalog keeps them.
            with cat.load_table("db.a") as t:
                t.append([{"id": 1000, "kind": "c", "x": None}])
            with cat.load_table("db.a") as t:
                got = sorted(t.scan().to_pylist(), key=lambda r: r["id"])
                self.assertEqual(len(t.snapshots()), 2)
            self.assertEqual(got, rows + [{"id": 1000, "kind": "c", "x": None}])
            # The same job again, by (catalog, identifier): nothing new.
            self.assertEqual(fdask.write_table(ddf, (cat, "db.a"), token="cat-job-1"), sid)
            self.assertEqual(fdask.write_table(ddf, cat, identifier="db.a", token="cat-job-1"), sid)
            with cat.load_table("db.a") as t:
                self.assertEqual(len(t.snapshots()), 2)
            # read_table takes the catalog's table too.
            back = fdask.read_table(cat, identifier="db.a", split_size=1).compute()
            self.assertEqual(sorted(back["id"].tolist()), [r["id"] for r in got])
            back = fdask.read_table((cat, "db.a"), columns=["id"]).compute()
            self.assertEqual(len(back), 201)

    def test_a_catalog_tables_location_is_not_committed_around_the_catalog(self):
        # The case: write_table(ddf, cat.load_table("db.a").location())
        # committed v2.metadata.json by path beside the catalog's file. A
        # path is still a path table's handle, so floe refuses the commit
        # (a catalog owns the table) and the catalog's history stays whole.
        with tempfile.TemporaryDirectory() as d:
            cat = floe.load_catalog("c", uri="sqlite:///" + os.path.join(d, "c.db"), warehouse=os.path.join(d, "wh"))
            self.addCleanup(cat.close)
            cat.create_namespace("db")
            with cat.create_table("db.a", SCHEMA) as t:
                t.append([{"id": 1, "kind": "a", "x": 1.0}])
                location = t.location()
            ddf = dd.from_pandas(pd.DataFrame([{"id": 2, "kind": "b", "x": 2.0}]), npartitions=1)
            with self.assertRaises(floe.FloeError) as caught:
                fdask.write_table(ddf, location.replace("file://", ""))
            self.assertIn("catalog", str(caught.exception))
            metadata_dir = os.path.join(location.replace("file://", ""), "metadata")
            self.assertEqual([n for n in os.listdir(metadata_dir) if n.startswith("v")], [])
            with cat.load_table("db.a") as t:
                t.append([{"id": 3, "kind": "c", "x": 3.0}])
            with cat.load_table("db.a") as t:
                self.assertEqual(sorted(r["id"] for r in t.scan().to_pylist()), [1, 3])

    def test_token_survives_expiry_through_dask(self):
        with tempfile.TemporaryDirectory() as d:
            loc = os.path.join(d, "t")
            floe.Table.create(loc, SCHEMA).close()
            ddf = dd.from_pandas(pd.DataFrame([{"id": 1, "kind": "a", "x": 1.0}]), npartitions=1)
            sid = fdask.write_table(ddf, loc, token="expire-job")
            with floe.Table.open(loc) as t:
                t.append([{"id": 2, "kind": "b", "x": 2.0}])
                t.append([{"id": 3, "kind": "b", "x": 3.0}])
                t.expire_snapshots(older_than_ms=2 ** 62, retain_last=1)
                self.assertIsNone(t.snapshot_by_id(sid))
            self.assertEqual(fdask.write_table(ddf, loc, token="expire-job"), sid)
            with floe.Table.open(loc) as t:
                self.assertEqual(sorted(r["id"] for r in t.scan().to_pylist()), [1, 2, 3])

    def test_unknown_mode_is_refused(self):
        ddf = dd.from_pandas(pd.DataFrame([{"id": 1, "kind": "a", "x": 1.0}]), npartitions=1)
        with self.assertRaises(ValueError):
            fdask.write_table(ddf, "/nonexistent", mode="upsert")


def _data_files(location):
    """Every file under the table's data directory."""
    root = os.path.join(location, "data")
    return sorted(os.path.join(r, n) for r, _, ns in os.walk(root) for n in ns)


def _referenced_files(location):
    """The data files some snapshot of the table reads (every snapshot's
    plan, by snapshot id)."""
    out = set()
    with floe.Table.open(location) as t:
        for s in t.snapshots():
            for f in t.scan(snapshot_id=s.snapshot_id).plan_files():
                out.add(f.file.file_path.replace("file://", ""))
    return sorted(out)


if __name__ == "__main__":
    unittest.main()
