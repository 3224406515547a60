"""Creating tables, appending, replacing partitions, writing files in one
place and committing them in another, expiring snapshots. The source rows
are those of impala_test_default_part, (i, j) = (1,-1) (2,-1) (3,5) (4,10)
(5,NULL) per INDEX.md, read through a floe scan (an __arrow_c_stream__
object) or written out as dicts."""

import ctypes
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import floe  # noqa: E402
from floe import FloeError, Status  # noqa: E402

from fixtures import fixture  # noqa: E402

SCHEMA = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "i", "required": False, "type": "int"},
    {"id": 2, "name": "j", "required": False, "type": "int"},
]}
ROWS = [{"i": 1, "j": -1}, {"i": 2, "j": -1}, {"i": 3, "j": 5}, {"i": 4, "j": 10}, {"i": 5, "j": None}]


def source_scan():
    t = fixture("impala_test_default_part").open()
    return t.scan()


def sorted_rows(t):
    return sorted(t.scan().to_pylist(), key=lambda r: r["i"])


class WriteTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="floe-py-write-")
        self.location = os.path.join(self.dir, "t")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_append_from_scan_and_token_retry(self):
        t = floe.Table.create(self.location, SCHEMA, partition_by=["j"])
        first = t.append(source_scan(), token="run/step-1", properties={"pipeline": "py"})
        self.assertEqual(sorted_rows(t), ROWS)
        summary = t.metadata["snapshots"][-1]["summary"]
        self.assertEqual(summary["floe.commit-token"], "run/step-1")
        self.assertEqual(summary["pipeline"], "py")
        # A retry with the token, through a freshly opened handle, commits nothing.
        with floe.Table.open(self.location) as again:
            self.assertEqual(again.append(source_scan(), token="run/step-1"), first)
            self.assertEqual(len(again.metadata["snapshots"]), 1)
        second = t.append(ROWS, token="run/step-2")
        self.assertNotEqual(second, first)
        self.assertEqual(sorted_rows(t), sorted(ROWS * 2, key=lambda r: r["i"]))
        # The data files are partitioned by j.
        data = os.path.join(self.location, "data")
        self.assertEqual(sorted(os.listdir(data)), ["j=-1", "j=10", "j=5", "j=null"])

    def test_replace_partitions(self):
        t = floe.Table.create(self.location, SCHEMA, partition_by=["j"])
        t.append(ROWS)
        t.replace_partitions([{"i": 30, "j": 5}, {"i": 50, "j": None}])
        self.assertEqual(sorted_rows(t), [ROWS[0], ROWS[1], ROWS[3], {"i": 30, "j": 5}, {"i": 50, "j": None}])

    def test_write_files_then_append_files_elsewhere(self):
        t = floe.Table.create(self.location, SCHEMA, format_version=3)
        files = t.write_files(source_scan())
        self.assertIsInstance(files, bytes)
        self.assertEqual(t.scan().to_pylist(), [])  # written, not committed
        with floe.Table.open(self.location) as committer:
            sid = committer.append_files(files, token="files-1")
            self.assertEqual(committer.append_files(files, token="files-1"), sid)
            self.assertEqual(sorted_rows(committer), ROWS)
            with self.assertRaises(FloeError) as cm:
                committer.commit(removed=["/nowhere/x.parquet"])
            self.assertEqual(cm.exception.code, Status.CONFLICT)
            more = committer.write_files([{"i": 6, "j": 6}])
            committer.commit(added=more, token="files-2")
            self.assertEqual(sorted_rows(committer), ROWS + [{"i": 6, "j": 6}])

    def test_expire_snapshots(self):
        t = floe.Table.create(self.location, SCHEMA)
        t.append(ROWS[:2])
        t.replace_partitions(ROWS)  # unpartitioned: replaces the first append's file
        result = t.expire_snapshots(older_than_ms=2**62, retain_last=1)
        self.assertEqual(len(result["expired_snapshots"]), 1)
        self.assertTrue(any(p.endswith(".parquet") for p in result["deleted_files"]))
        self.assertEqual(len(t.metadata["snapshots"]), 1)
        self.assertEqual(sorted_rows(t), ROWS)

    def test_errors(self):
        t = floe.Table.create(self.location, SCHEMA)
        with self.assertRaises(FloeError) as cm:
            floe.Table.create(self.location, SCHEMA)
        self.assertEqual(cm.exception.code, Status.CONFLICT)
        with self.assertRaises(FloeError) as cm:
            t.append([{"i": "not a number"}])
        self.assertEqual(cm.exception.code, Status.INVALID_ARGUMENT)
        with self.assertRaises(TypeError):
            t.append(42)
        with self.assertRaises(FloeError) as cm:
            t.append(ROWS, properties={"operation": "delete"})
        self.assertEqual(cm.exception.code, Status.INVALID_ARGUMENT)
        self.assertEqual(t.scan().to_pylist(), [])

    def test_create_in_warehouse_and_ensure(self):
        t = floe.Table.create("ns.events", SCHEMA, warehouse=self.dir)
        t.append(ROWS)
        wider = {"type": "struct", "fields": SCHEMA["fields"] + [{"id": 0, "name": "k", "required": False,
                                                                   "type": "string"}]}
        t2 = floe.Table.create("ns.events", wider, warehouse=self.dir, ensure=True)
        t2.append([{"i": 7, "j": 7, "k": "x"}])
        rows = sorted(t2.scan().to_pylist(), key=lambda r: r["i"])
        self.assertEqual(rows[-1], {"i": 7, "j": 7, "k": "x"})
        self.assertEqual(rows[0], {"i": 1, "j": -1, "k": None})
        self.assertTrue(os.path.isdir(os.path.join(self.dir, "ns", "events", "metadata")))

    @unittest.skipUnless(__import__("importlib").util.find_spec("pyarrow"), "needs pyarrow")
    def test_arrow_c_array(self):
        import pyarrow as pa

        t = floe.Table.create(self.location, SCHEMA)
        batch = pa.RecordBatch.from_pylist(ROWS, schema=pa.schema([("i", pa.int32()), ("j", pa.int32())]))
        t.append(batch)
        self.assertEqual(sorted_rows(t), ROWS)

    def test_arrow_c_array_without_pyarrow(self):
        """An __arrow_c_array__ producer built from the C Data Interface by
        hand: one batch of the fixture's rows, taken from a floe stream and
        handed over as "arrow_schema" / "arrow_array" capsules."""
        src = floe.Table.create(os.path.join(self.dir, "src"), SCHEMA)
        src.append(ROWS)  # one data file: one batch
        t = floe.Table.create(self.location, SCHEMA)
        t.append(CArrayBatch(src.scan()))
        self.assertEqual(sorted_rows(t), ROWS)


class CArrayBatch:
    """The first batch of an Arrow C stream, as the PyCapsule protocol's
    __arrow_c_array__ hands it out."""

    def __init__(self, producer):
        from floe._lib import ArrowArray, ArrowArrayStream, ArrowSchema
        stream = ArrowArrayStream()
        capsule = producer.__arrow_c_stream__()
        get = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
            ("PyCapsule_GetPointer", ctypes.pythonapi))
        src = ArrowArrayStream.from_address(get(capsule, b"arrow_array_stream"))
        ctypes.memmove(ctypes.addressof(stream), ctypes.addressof(src), ctypes.sizeof(stream))
        src.release = ctypes.cast(None, type(src.release))  # moved out
        self.schema, self.array = ArrowSchema(), ArrowArray()
        assert stream.get_schema(ctypes.byref(stream), ctypes.byref(self.schema)) == 0
        assert stream.get_next(ctypes.byref(stream), ctypes.byref(self.array)) == 0
        stream.release(ctypes.byref(stream))

    def __arrow_c_array__(self, requested_schema=None):
        new = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)(
            ("PyCapsule_New", ctypes.pythonapi))
        # The consumer moves both structures out; nothing is left to free.
        return (new(ctypes.addressof(self.schema), b"arrow_schema", None),
                new(ctypes.addressof(self.array), b"arrow_array", None))


if __name__ == "__main__":
    unittest.main()
