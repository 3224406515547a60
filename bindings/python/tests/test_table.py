"""Opening tables, metadata, planning, tasks and errors: everything short of
reading data files."""

import ctypes
import os
import pickle
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import floe  # noqa: E402
from floe import FloeError, Status  # noqa: E402

from fixtures import FIXTURES, all_fixtures, fixture  # noqa: E402

LINEITEM_FIRST_SNAPSHOT = 7817332053627255703


class OpenTest(unittest.TestCase):
    def test_version(self):
        self.assertRegex(floe.version(), r"^\d+\.\d+\.\d+$")

    def test_every_fixture_opens(self):
        for f in all_fixtures():
            with self.subTest(f.name):
                with f.open() as t:
                    self.assertEqual(t.metadata["format-version"], f.format_version)
                    self.assertEqual(os.path.realpath(t.metadata_location), os.path.realpath(f.metadata))
                    scan = t.scan()
                    self.assertGreater(len(scan.plan_tasks()), 0)
                    scan.close()

    def test_metadata_file_directly(self):
        f = fixture("duckdb_uuid")
        with floe.Table.open(f.metadata, location_map=f.location_map) as t:
            self.assertEqual(t.metadata["current-snapshot-id"], 3974286791591741252)

    def test_dataset_name_in_warehouse(self):
        f = fixture("duckdb_equality_deletes/mytable")
        warehouse = os.path.join(FIXTURES, "duckdb_equality_deletes", "warehouse")
        with floe.Table.open("mydb.mytable", location_map=f.location_map, warehouse=warehouse) as t:
            self.assertEqual(t.metadata["format-version"], 2)

    def test_moved_table_opens_without_a_map(self):
        # Copied out of HDFS: the metadata records /test-warehouse/...,
        # which does not exist here, so the table is read from where it
        # was found; relocate=False reads the recorded paths and the error
        # names the map that finds them.
        f = fixture("impala_iceberg_partitioned")
        recorded = "/test-warehouse/iceberg_test/iceberg_partitioned"
        with floe.Table.open(f.location) as t:
            scan = t.scan()
            self.assertEqual(scan.count(), 20)
            scan.close()
        with floe.Table.open(f.location, relocate=False) as t:
            err = self.assertStatusOf(Status.NOT_FOUND, t.scan)
            self.assertIn("table data is recorded under %s, which does not exist; pass --map %s=%s"
                          % (recorded, recorded, os.path.abspath(f.location)), err.message)
        with floe.Table.open(f.location, relocate=False, location_map={recorded: f.location}) as t:
            scan = t.scan()
            self.assertEqual(scan.count(), 20)
            scan.close()

    def assertStatusOf(self, code, fn):
        with self.assertRaises(FloeError) as ctx:
            fn().plan_tasks()
        self.assertEqual(ctx.exception.code, code, ctx.exception.message)
        return ctx.exception

    def test_metadata_has_snapshots(self):
        with fixture("duckdb_lineitem_iceberg").open() as t:
            ids = [s["snapshot-id"] for s in t.metadata["snapshots"]]
            self.assertEqual(ids, [LINEITEM_FIRST_SNAPSHOT, 2354745328521181395])


class ScanPlanTest(unittest.TestCase):
    def setUp(self):
        self.table = fixture("duckdb_lineitem_iceberg").open()

    def tearDown(self):
        self.table.close()

    def test_schema(self):
        schema = self.table.scan().schema
        names = [c.name for c in schema.children]
        self.assertEqual(len(names), 16)
        self.assertEqual(names[0], "l_orderkey")
        by_name = {c.name: c for c in schema.children}
        self.assertEqual(by_name["l_quantity"].format, "d:15,2")
        self.assertEqual(by_name["l_shipdate"].format, "tdD")
        self.assertEqual(by_name["l_comment"].format, "u")
        self.assertEqual(by_name["l_comment"].field_id, 16)

    def test_selected_fields(self):
        schema = self.table.scan(selected_fields=["l_shipdate", "l_orderkey"]).schema
        self.assertEqual([c.name for c in schema.children], ["l_shipdate", "l_orderkey"])
        self.assertEqual(len(self.table.scan(selected_fields=("*",)).schema.children), 16)

    def test_case_insensitive(self):
        schema = self.table.scan(selected_fields=["L_ORDERKEY"], case_sensitive=False).schema
        self.assertEqual([c.name for c in schema.children], ["l_orderkey"])

    def test_io_options(self):
        want = self.table.scan().count()
        self.assertEqual(self.table.scan(threads=2, buffer_bytes=1 << 16, coalesce_gap=-1, prefetch_bytes=-1).count(), want)
        with self.assertRaises(FloeError) as e:
            self.table.scan(coalesce_gapp=1)
        self.assertEqual(e.exception.code, Status.INVALID_ARGUMENT)

    def test_time_travel_plan(self):
        tasks = self.table.scan(snapshot_id=LINEITEM_FIRST_SNAPSHOT).plan_tasks()
        self.assertEqual(len(tasks), 1)
        self.assertEqual(tasks[0].record_count, 60175)
        self.assertEqual(self.table.scan().plan_tasks()[0].record_count, 51793)

    def test_schema_capsule(self):
        capsule = self.table.scan().__arrow_c_schema__()
        self.assertEqual(type(capsule).__name__, "PyCapsule")
        ctypes.pythonapi.PyCapsule_GetName.restype = ctypes.c_char_p
        ctypes.pythonapi.PyCapsule_GetName.argtypes = [ctypes.py_object]
        self.assertEqual(ctypes.pythonapi.PyCapsule_GetName(capsule), b"arrow_schema")
        del capsule  # the destructor releases the schema


# A split size of read.split.open-file-cost's default: every small file is a
# task of its own.
ONE_FILE_PER_TASK = 4 << 20


class TaskTest(unittest.TestCase):
    def check_serialises(self, task, location_map):
        again = pickle.loads(pickle.dumps(task))
        self.assertEqual(again, task)
        self.assertEqual(again.to_bytes(), task.to_bytes())
        rebuilt = floe.Task.from_bytes(task.to_bytes(), location_map=location_map)
        self.assertEqual(rebuilt, task)

    def test_tasks_serialise_and_pickle(self):
        f = fixture("impala_iceberg_v2_partitioned_position_deletes")
        with f.open() as t:
            tasks = t.scan(split_size=ONE_FILE_PER_TASK).plan_tasks()
        self.assertEqual(len(tasks), 3)
        self.assertEqual(sum(task.record_count for task in tasks), 20)
        for task in tasks:
            self.check_serialises(task, f.location_map)
            self.assertTrue(os.path.exists(task.file_path), task.file_path)
            self.assertTrue(task.file_tasks[0]["deletes"], "every data file of this table has position deletes")

    def test_small_files_pack_into_one_task(self):
        f = fixture("impala_iceberg_v2_partitioned_position_deletes")
        with f.open() as t:
            tasks = t.scan().plan_tasks()
        self.assertEqual(len(tasks), 1)
        task = tasks[0]
        self.check_serialises(task, f.location_map)
        self.assertEqual(task.record_count, 20)
        self.assertIsNone(task.file_path)
        self.assertEqual(len(task.file_paths), 3)
        self.assertTrue(all(os.path.exists(p) for p in task.file_paths), task.file_paths)
        self.assertEqual(task.info["group_version"], 1)

    def test_byte_range_tasks(self):
        f = fixture("impala_iceberg_v2_partitioned_position_deletes")
        with f.open() as t:
            tasks = t.scan(split_size=256).plan_tasks()
        self.assertGreaterEqual(len(tasks), 12)  # three files of about 1200 bytes
        for task in tasks:
            self.check_serialises(task, f.location_map)
            self.assertIsNone(task.record_count)
            self.assertEqual(task.file_tasks[0]["length"], min(256, task.file_tasks[0]["file_size"] - task.file_tasks[0]["start"]))
            self.assertIn("floe.Task", repr(task))

    def test_host_driven_io(self):
        """The test plays an engine with its own I/O: it reads what each
        task asks for and hands it in; the rows equal the tasks' own."""
        for name in ("impala_iceberg_v2_partitioned_position_deletes", "impala_iceberg_v3_deletion_vectors",
                     "duckdb_lineitem_iceberg"):
            f = fixture(name)
            with f.open() as t:
                tasks = t.scan(split_size=4096).plan_tasks()
                want_rows = t.scan().count()
            total = 0
            for task in tasks:
                with task.host_io() as io:
                    rounds = 0
                    while True:
                        need = io.needed()
                        if not need:
                            break
                        rounds += 1
                        self.assertLessEqual(rounds, 8)
                        for path, offset, length in need:
                            with open(path, "rb") as fh:
                                fh.seek(offset)
                                io.fill(path, offset, fh.read(length))
                    got = io.to_pylist()
                self.assertEqual(got, task.to_pylist())
                total += len(got)
            self.assertEqual(total, want_rows, name)

    def test_tasks_keep_the_scan_read_settings(self):
        """A task's bytes hold no limit or batch size (the reader's
        settings); plan_tasks gives each task the scan's, so a task read
        anywhere, pickled or host-driven, returns at most the scan's limit,
        and a task rebuilt from bytes reads with the settings it is given."""
        f = fixture("duckdb_lineitem_iceberg")
        with f.open() as t:
            tasks = t.scan(limit=1000, batch_size=300).plan_tasks()
        self.assertEqual(len(tasks), 1)
        task = tasks[0]
        for inner in task.file_tasks:
            self.assertNotIn("limit", inner)
            self.assertNotIn("batch_size", inner)
        self.assertEqual([batch.length for _, batch in task._batches()], [300, 300, 300, 100])
        self.assertEqual(len(pickle.loads(pickle.dumps(task)).to_pylist()), 1000)
        with task.host_io() as io:
            while True:
                need = io.needed()
                if not need:
                    break
                for path, offset, length in need:
                    with open(path, "rb") as fh:
                        fh.seek(offset)
                        io.fill(path, offset, fh.read(length))
            self.assertEqual(len(io.to_pylist()), 1000)
        bare = floe.Task.from_bytes(task.to_bytes(), location_map=f.location_map)
        self.assertEqual(bare.count(), 51793)
        self.assertEqual(len(floe.Task.from_bytes(task.to_bytes(), location_map=f.location_map, limit=7).to_pylist()), 7)
        with self.assertRaises(FloeError) as e:
            floe.Task.from_bytes(task.to_bytes(), limit=-1).to_pylist()
        self.assertEqual(e.exception.code, Status.INVALID_ARGUMENT)

    def test_host_driven_io_refuses_unfilled_reads(self):
        with fixture("duckdb_lineitem_iceberg").open() as t:
            task = t.scan().plan_tasks()[0]
        with task.host_io() as io:
            with self.assertRaises(FloeError) as e:
                io.to_pylist()
            self.assertIn("not filled by the host", e.exception.message)
            with self.assertRaises(FloeError):
                io.fill("/elsewhere.parquet", 0, b"x")


class ErrorTest(unittest.TestCase):
    def assertStatus(self, code, fn, *args, **kwargs):
        with self.assertRaises(FloeError) as ctx:
            fn(*args, **kwargs)
        self.assertEqual(ctx.exception.code, code, ctx.exception.message)
        self.assertTrue(ctx.exception.message)
        return ctx.exception

    def test_missing_table(self):
        err = self.assertStatus(Status.NOT_FOUND, floe.Table.open, os.path.join(FIXTURES, "no_such_table"))
        self.assertIn("no_such_table", err.message)

    def test_bad_options(self):
        loc = fixture("duckdb_uuid").location
        self.assertStatus(Status.INVALID_ARGUMENT, floe.Table.open, loc, locaton_map={})
        self.assertStatus(Status.INVALID_ARGUMENT, floe.Table.open, loc, location_map={"": "/x"})
        self.assertStatus(Status.INVALID_ARGUMENT, floe.Table.open, "")
        self.assertStatus(Status.UNSUPPORTED, floe.Table.open, loc, properties={"s3.region": "x"})
        self.assertStatus(Status.UNSUPPORTED, floe.Table.open, "hdfs://namenode/warehouse/t")

    def test_bad_json_through_the_c_api(self):
        handle = ctypes.c_void_p()
        lib = floe.library()
        rc = lib.floe_table_open(fixture("duckdb_uuid").location.encode(), b'{"location_map": ', ctypes.byref(handle))
        self.assertEqual(rc, Status.INVALID_ARGUMENT)
        self.assertIn(b"not valid JSON", lib.floe_last_error())
        self.assertIsNone(handle.value)

    def test_bad_scans(self):
        with fixture("duckdb_uuid").open() as t:
            self.assertStatus(Status.INVALID_ARGUMENT, t.scan, selected_fields=["nope"])
            self.assertStatus(Status.INVALID_ARGUMENT, t.scan, limit=-1)
            self.assertStatus(Status.INVALID_ARGUMENT, t.scan, split_size=-1)
            self.assertStatus(Status.INVALID_ARGUMENT, t.scan, ref="main", snapshot_id=3974286791591741252)
            self.assertStatus(Status.NOT_FOUND, t.scan, snapshot_id=42)
            self.assertStatus(Status.NOT_FOUND, t.scan, ref="nope")
            self.assertStatus(Status.INVALID_ARGUMENT, t.scan, row_filter="nope = 1")
            self.assertStatus(Status.INVALID_ARGUMENT, t.scan, row_filter="uuid <")
            # A required column is never null: the filter folds to false.
            self.assertEqual(t.scan(row_filter="uuid IS NULL").count(), 0)
            self.assertEqual(t.scan(row_filter="uuid = '1571effb-facd-42a3-90e9-0af522e9b6c2'").count(), 1)

    def test_use_after_close(self):
        t = fixture("duckdb_uuid").open()
        scan = t.scan()
        t.close()
        t.close()  # closing twice is harmless
        self.assertStatus(Status.INVALID_ARGUMENT, lambda: t.metadata_location)
        self.assertStatus(Status.INVALID_ARGUMENT, t.scan)
        self.assertEqual(len(scan.plan_tasks()), 1)  # a scan outlives its table; two small files, one task
        scan.close()
        err = self.assertStatus(Status.INVALID_ARGUMENT, scan.plan_tasks)
        self.assertIn("not valid", err.message)
        self.assertStatus(Status.INVALID_ARGUMENT, lambda: scan.schema)

    def test_corrupt_task(self):
        self.assertStatus(Status.INVALID_ARGUMENT, floe.Task.from_bytes(b"\x00garbage").count)
        self.assertStatus(Status.INVALID_ARGUMENT, floe.Task.from_bytes(b'{"version": 99}').to_pylist)
        self.assertStatus(Status.INVALID_ARGUMENT, floe.Task.from_bytes(b'{"group_version": 2, "tasks": []}').count)

    def test_error_pickles(self):
        err = pickle.loads(pickle.dumps(FloeError(2, "gone")))
        self.assertEqual((err.code, err.message), (Status.NOT_FOUND, "gone"))


if __name__ == "__main__":
    unittest.main()
