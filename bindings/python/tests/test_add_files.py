"""add_files from Python: the Parquet files DuckDB wrote for one of the
fixture tables, registered in a new table without being rewritten, read
back as the original table reads; and what add_files refuses."""

import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import floe  # noqa: E402
from floe import FloeError, Status  # noqa: E402

from fixtures import fixture  # noqa: E402


def rows(t):
    return sorted(t.scan().to_pylist(), key=lambda r: tuple((v is None, str(v)) for v in r.values()))


class AddFilesTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="floe-py-add-files-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_duckdb_files(self):
        fx = fixture("duckdb_lineitem_iceberg")
        src = fx.open()
        # The live files of the current snapshot (the data directory holds
        # older ones too).
        paths = sorted({p for task in src.scan().plan_tasks() for p in task.file_paths})
        self.assertTrue(paths and all(os.path.exists(p) for p in paths))
        schema = next(s for s in src.metadata["schemas"] if s["schema-id"] == src.metadata["current-schema-id"])
        t = floe.Table.create(os.path.join(self.dir, "t"), schema)
        snapshot = t.add_files(paths, token="load-1")
        self.assertEqual(t.add_files(paths, token="load-1"), snapshot)
        got, want = rows(t), rows(src)
        self.assertEqual(len(got), len(want))
        self.assertEqual(got[:100], want[:100])
        self.assertEqual(got[-100:], want[-100:])
        with self.assertRaises(FloeError) as cm:
            t.add_files(paths[:1])
        self.assertEqual(cm.exception.code, Status.CONFLICT)
        with self.assertRaises(FloeError) as cm:
            t.add_files([os.path.join(self.dir, "missing.parquet")])
        self.assertEqual(cm.exception.code, Status.NOT_FOUND)
        with self.assertRaises(TypeError):
            t.add_files(paths[0])


if __name__ == "__main__":
    unittest.main()
