"""Reading rows: counts and values on the fixture tables (expected answers
from INDEX.md), tasks in other processes, and the Arrow PyCapsule Interface
including capsules left unconsumed at interpreter exit."""

import ctypes
import datetime
import decimal
import multiprocessing
import os
import pickle
import subprocess
import sys
import textwrap
import unittest
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

import floe  # noqa: E402
from floe._lib import ArrowArray, ArrowArrayStream, ArrowSchema  # noqa: E402

from fixtures import EXPECTED_ROWS, all_fixtures, fixture  # noqa: E402

try:
    import pyarrow  # noqa: F401

    HAVE_PYARROW = True
except ImportError:
    HAVE_PYARROW = False


def count_task(task_bytes_and_map):
    data, location_map = task_bytes_and_map
    return floe.Task.from_bytes(data, location_map=location_map).count()


def count_pickled(task):
    return task.count()


class RowsTest(unittest.TestCase):
    def test_row_counts(self):
        for f in all_fixtures():
            with self.subTest(f.name), f.open() as t:
                self.assertEqual(t.scan().count(), EXPECTED_ROWS[f.name])

    def test_time_travel_and_limit(self):
        with fixture("duckdb_lineitem_iceberg").open() as t:
            self.assertEqual(t.scan(snapshot_id=7817332053627255703).count(), 60175)
            self.assertEqual(t.scan(limit=1000).count(), 1000)
            self.assertEqual(t.scan(selected_fields=["l_orderkey"], batch_size=4096, threads=1).count(), 51793)
        with fixture("impala_iceberg_v3_deletion_vectors").open() as t:
            self.assertEqual(sorted(r["i"] for r in t.scan(snapshot_id=2700858159721908397).to_pylist()), [1, 2, 3, 4, 5])

    def test_all_types_values(self):
        with fixture("impala_iceberg_v3_all_types").open() as t:
            rows = sorted(t.scan().to_pylist(), key=lambda r: r["id"])
        f32 = ctypes.c_float(3.14).value
        want = [
            dict(id=1, col_boolean=False, col_int=-1, col_bigint=-1, col_float=1.5, col_double=2.5,
                 col_decimal=decimal.Decimal("123.45"), col_string="initial_default",
                 col_date=datetime.date(2024, 1, 1), col_timestamp=datetime.datetime(1969, 12, 31, 23, 59, 59, 123456),
                 col_timestamp_epoch=datetime.datetime(1970, 1, 1),
                 col_timestamp_iso=datetime.datetime(2024, 1, 15, 10, 30, 45, 123456)),
            dict(id=2, col_boolean=True, col_int=42, col_bigint=9999999999, col_float=f32, col_double=2.71828,
                 col_decimal=decimal.Decimal("999.99"), col_string="explicit",
                 col_date=datetime.date(2024, 12, 25), col_timestamp=datetime.datetime(2024, 12, 25, 10, 30, 45, 123456),
                 col_timestamp_epoch=datetime.datetime(1970, 1, 1),
                 col_timestamp_iso=datetime.datetime(2024, 1, 15, 10, 30, 45, 123456)),
        ]
        self.assertEqual(len(rows), 2)
        for got, expected in zip(rows, want):
            for key, value in expected.items():
                self.assertEqual(got[key], value, key)

    def test_uuid_values(self):
        with fixture("duckdb_uuid").open() as t:
            got = {r["uuid"] for r in t.scan().to_pylist()}
        want = {uuid.UUID(u) for u in (
            "8dc314d8-3fd4-4b3a-8bf5-c008f363c2e4", "a217c09f-06fa-4e91-8315-ff44753c4a54",
            "abd6f939-9b99-4e1d-9cda-0dc8ce60a161", "e6218567-354b-4a9c-8cd7-3d4b6a2470f8",
            "f9f28465-51cf-45f1-8985-e01d9a82253c", "1571effb-facd-42a3-90e9-0af522e9b6c2",
            "160a53fe-3d8b-443d-bd36-ad66287f585a", "37afa09a-f496-48a8-89a9-61ea7ccd85d5",
            "3ef257b8-e9c6-4c53-9c22-973729e1043f", "7fae299c-cf05-4777-9b42-57a52e1415ed")}
        self.assertEqual(got, want)

    def test_default_part_values(self):
        with fixture("impala_test_default_part").open() as t:
            rows = sorted((r["i"], r["j"]) for r in t.scan().to_pylist())
        self.assertEqual(rows, [(1, -1), (2, -1), (3, 5), (4, 10), (5, None)])

    def test_position_deletes_values(self):
        with fixture("impala_iceberg_v2_partitioned_position_deletes").open() as t:
            rows = t.scan(selected_fields=["id", "action"]).to_pylist()
        self.assertEqual(sorted(r["id"] for r in rows), [2, 4, 6, 8, 10, 12, 14, 16, 18, 20])
        self.assertEqual(sorted(r["action"] for r in rows).count("click"), 3)

    def test_delete_fixture_values(self):
        d = datetime.date
        cases = {
            "impala_iceberg_v2_delete_pos_and_multi_eq_ids": [
                (1, "str1", d(2020, 12, 1)), (4, "str4", d(2024, 1, 26)), (5, "str5", d(2024, 1, 27)), (333333, "str3", d(2024, 1, 25))],
            "impala_iceberg_v2_delete_equality_partitioned": [
                (1, "str1", d(2023, 12, 24)), (1, "str1", d(2023, 12, 25)), (2, "str2", d(2023, 12, 24)),
                (4, "str4", d(2023, 12, 24)), (222, "str2", d(2023, 12, 25)), (333333, "str3", d(2023, 12, 24))],
            "impala_iceberg_v2_equality_delete_schema_evolution": [
                (1, d(2024, 3, 20), "str1", None), (5, d(2024, 3, 22), "str5", None), (44, d(2024, 3, 21), "str4", 4444)],
            "impala_iceberg_v2_positional_not_all_data_files_have_delete_files": [
                (1, "a"), (2, "b"), (3, "c"), (4, "d"), (5, "X"), (6, "f")],
            "impala_iceberg_v3_deletion_vectors": [(1,), (3,), (5,)],
            "duckdb_equality_deletes/mytable": [(4, "d", d(2025, 1, 4)), (5, "e", d(2025, 1, 5))],
            "duckdb_equality_deletes/mytable_partitioned": [
                (1, "a", d(2025, 1, 1)), (4, "d", d(2025, 1, 4)), (5, "e", d(2025, 1, 5))],
        }
        for name, want in cases.items():
            with self.subTest(name), fixture(name).open() as t:
                got = sorted(tuple(r.values()) for r in t.scan().to_pylist())
                self.assertEqual(got, sorted(want))
        with fixture("impala_iceberg_v2_equality_delete_schema_evolution").open() as t:
            old = sorted(tuple(r.values()) for r in t.scan(snapshot_id=3986738438831924669).to_pylist())
        self.assertEqual(old, [(1, d(2024, 3, 20), "str1"), (4, d(2024, 3, 21), "str4"), (5, d(2024, 3, 22), "str5")])

    def test_positions_and_row_lineage(self):
        with fixture("impala_iceberg_v2_partitioned_position_deletes").open() as t:
            rows = t.scan(selected_fields=["action", "_pos"]).to_pylist()
        self.assertEqual(sorted(r["_pos"] for r in rows if r["action"] == "view"), [0, 3, 7])
        with fixture("impala_iceberg_v3_row_lineage").open() as t:
            rows = t.scan(selected_fields=["i", "_row_id", "_last_updated_sequence_number"]).to_pylist()
        self.assertEqual(sorted(tuple(r.values()) for r in rows), [(1, 0, 1), (2, 1, 2), (3, 2, 3)])

    def test_migrated_nested_values(self):
        with fixture("impala_iceberg_migrated_complex_test").open() as t:
            rows = t.scan(selected_fields=["struct_1_col.string_col", "struct_2_col.struct_3_col.float_col"]).to_pylist()
        self.assertEqual(len(rows), 1)
        self.assertEqual(rows[0]["struct_1_col"]["string_col"], "A")
        self.assertEqual(rows[0]["struct_2_col"]["struct_3_col"]["float_col"], 0.5)


class TaskReadTest(unittest.TestCase):
    def test_tasks_sum_to_the_scan(self):
        f = fixture("impala_iceberg_v2_partitioned_position_deletes")
        for split_size in (None, 4 << 20, 256):
            with self.subTest(split_size=split_size), f.open() as t:
                scan = t.scan(selected_fields=["id", "_pos"], split_size=split_size)
                tasks = scan.plan_tasks()
                self.assertEqual(sum(task.count() for task in tasks), 10)
                rows = [r for task in tasks for r in pickle.loads(pickle.dumps(task)).to_pylist()]
                # The tasks, in order, read the scan's rows in its order.
                self.assertEqual(rows, t.scan(selected_fields=["id", "_pos"], threads=1).to_pylist())
                # INDEX.md: in the action=view file, positions 0, 3 and 7 survive.
                self.assertEqual(sorted(r["_pos"] for r in rows if r["id"] in (4, 6, 20)), [0, 3, 7])

    def test_unordered_scan(self):
        f = fixture("impala_iceberg_v2_partitioned_position_deletes")
        with f.open() as t:
            ordered = t.scan(selected_fields=["id", "_pos"], threads=1).to_pylist()
            unordered = t.scan(selected_fields=["id", "_pos"], threads=4, ordered=False, split_size=256).to_pylist()
        key = lambda r: (r["id"], r["_pos"])  # noqa: E731
        self.assertEqual(sorted(unordered, key=key), sorted(ordered, key=key))

    @unittest.skipUnless(HAVE_PYARROW, "needs pyarrow")
    def test_task_arrow_batch_reader(self):
        f = fixture("impala_iceberg_v2_partitioned_position_deletes")
        with f.open() as t:
            tasks = t.scan(split_size=256).plan_tasks()
        self.assertEqual(sum(task.to_arrow_batch_reader().read_all().num_rows for task in tasks), 10)

    def test_tasks_in_spawned_processes(self):
        f = fixture("impala_iceberg_v2_partitioned_position_deletes")
        with f.open() as t:
            # 256-byte ranges of three files of about 1200 bytes (Hive wrote
            # no split offsets): only one range of each holds its row group.
            tasks = t.scan(split_size=256).plan_tasks()
        self.assertGreaterEqual(len(tasks), 12)
        ctx = multiprocessing.get_context("spawn")  # never fork a process running Go
        env_path = os.pathsep.join([os.path.join(HERE, ".."), HERE])
        old = os.environ.get("PYTHONPATH")
        os.environ["PYTHONPATH"] = env_path + (os.pathsep + old if old else "")
        try:
            with ctx.Pool(2) as pool:
                by_pickle = pool.map(count_pickled, tasks)
                by_bytes = pool.map(count_task, [(task.to_bytes(), f.location_map) for task in tasks])
        finally:
            if old is None:
                del os.environ["PYTHONPATH"]
            else:
                os.environ["PYTHONPATH"] = old
        self.assertEqual(sum(by_pickle), 10)
        self.assertEqual(by_bytes, by_pickle)
        self.assertEqual(sum(1 for n in by_pickle if n), 3)


_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype = ctypes.c_void_p
_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


class CapsuleTest(unittest.TestCase):
    def test_consumed_stream_capsule(self):
        with fixture("duckdb_uuid").open() as t:
            capsule = t.scan().__arrow_c_stream__()
        # Consume it as pyarrow would: move the structure out of the capsule.
        inner = ArrowArrayStream.from_address(_get_pointer(capsule, b"arrow_array_stream"))
        stream = ArrowArrayStream()
        ctypes.memmove(ctypes.addressof(stream), ctypes.addressof(inner), ctypes.sizeof(stream))
        inner.release = ctypes.cast(None, type(inner.release))
        del capsule  # frees the moved-from structure only
        schema = ArrowSchema()
        self.assertEqual(stream.get_schema(ctypes.byref(stream), ctypes.byref(schema)), 0)
        self.assertEqual(schema.n_children, 1)
        schema.release(ctypes.byref(schema))
        rows = 0
        while True:
            batch = ArrowArray()
            self.assertEqual(stream.get_next(ctypes.byref(stream), ctypes.byref(batch)), 0)
            if not batch.release:
                break
            rows += batch.length
            batch.release(ctypes.byref(batch))
        stream.release(ctypes.byref(stream))
        self.assertEqual(rows, 10)

    def test_unconsumed_stream_capsule(self):
        with fixture("duckdb_uuid").open() as t:
            scan = t.scan()
            for _ in range(3):
                capsule = scan.__arrow_c_stream__()
                del capsule  # the destructor releases the stream

    def test_capsules_left_at_interpreter_exit(self):
        # Capsules held by module globals die during interpreter teardown,
        # after floe's Python modules are gone: the C destructor must cope.
        f = fixture("duckdb_uuid")
        script = textwrap.dedent(f"""
            import floe
            t = floe.Table.open({f.location!r}, location_map={f.location_map!r})
            scan = t.scan()
            KEEP = [scan.__arrow_c_stream__(), scan.__arrow_c_schema__(), scan.__arrow_c_stream__()]
            batch_started = scan.__arrow_c_stream__()
            print("ok")
        """)
        env = dict(os.environ, PYTHONPATH=os.path.join(HERE, ".."))
        proc = subprocess.run([sys.executable, "-X", "dev", "-c", script], capture_output=True, text=True, env=env,
                              timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stdout.strip(), "ok")
        self.assertNotIn("Fatal", proc.stderr)

    def test_schema_capsule_left_at_interpreter_exit(self):
        f = fixture("duckdb_uuid")
        script = textwrap.dedent(f"""
            import floe
            t = floe.Table.open({f.location!r}, location_map={f.location_map!r})
            KEEP = [t.scan().__arrow_c_schema__() for _ in range(3)]
            print("ok")
        """)
        env = dict(os.environ, PYTHONPATH=os.path.join(HERE, ".."))
        proc = subprocess.run([sys.executable, "-X", "dev", "-c", script], capture_output=True, text=True, env=env,
                              timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stdout.strip(), "ok")


@unittest.skipUnless(HAVE_PYARROW, "pyarrow is not installed")
class PyArrowTest(unittest.TestCase):
    def test_to_arrow(self):
        import pyarrow as pa

        with fixture("duckdb_lineitem_iceberg").open() as t:
            table = t.scan(selected_fields=["l_orderkey", "l_quantity"]).to_arrow()
        self.assertEqual(table.num_rows, 51793)
        self.assertEqual(table.schema.field("l_quantity").type, pa.decimal128(15, 2))

    def test_pycapsule_consumer(self):
        import pyarrow as pa

        with fixture("duckdb_uuid").open() as t:
            reader = pa.RecordBatchReader.from_stream(t.scan())
            self.assertEqual(reader.read_all().num_rows, 10)


if __name__ == "__main__":
    unittest.main()


class CancelTest(unittest.TestCase):
    """Scan.cancel from another thread stops the scan's reads; timeout_ms
    is checked. The latency under a stalled S3 read is measured in
    capi/scan_cancel_test.go (fault proxy)."""

    def test_cancel_from_another_thread(self):
        import threading

        with fixture("duckdb_lineitem_iceberg").open() as t:
            for threads in (1, 2):
                scan = t.scan(batch_size=1024, threads=threads)
                batches = scan._batches()
                next(batches)  # a read under way
                canceller = threading.Thread(target=scan.cancel)
                canceller.start()
                canceller.join()
                with self.assertRaises(floe.FloeError) as caught:
                    for _ in batches:
                        pass
                self.assertEqual(caught.exception.code, floe.Status.CANCELLED)
                # Every later call on the scan is cancelled too; a second
                # cancel is harmless.
                scan.cancel()
                for call in (scan.to_pylist, scan.count, scan.plan_tasks, lambda: scan.add_filter("l_orderkey > 5")):
                    with self.assertRaises(floe.FloeError) as caught:
                        call()
                    self.assertEqual(caught.exception.code, floe.Status.CANCELLED)
                # What it did is still there to see.
                self.assertIn("rows_returned", scan.metrics())
                scan.close()
            # Other scans of the table are untouched.
            self.assertEqual(t.scan(selected_fields=["l_orderkey"]).count(), 51793)

    def test_timeout_option(self):
        with fixture("duckdb_lineitem_iceberg").open() as t:
            self.assertEqual(len(t.scan(selected_fields=["l_orderkey"], timeout_ms=60000).to_pylist()), 51793)
            with self.assertRaises(floe.FloeError) as caught:
                t.scan(timeout_ms=-1)
            self.assertEqual(caught.exception.code, floe.Status.INVALID_ARGUMENT)
        f = fixture("duckdb_lineitem_iceberg")
        with floe.Table.open(f.location, location_map=f.location_map, timeout_ms=60000) as t:
            self.assertEqual(t.scan(selected_fields=["l_orderkey"]).count(), 51793)
