"""t.maintenance.rewrite_data_files(output_spec_id=...): compaction of a
table whose spec evolved writes the new files in the default spec, or in
the spec output_spec_id names, with the rows unchanged."""

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


class OutputSpecTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="floe-py-output-spec-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_output_spec_id(self):
        t = floe.Table.create(os.path.join(self.dir, "t"), SCHEMA, format_version=2)
        for i in range(3):
            t.append([{"id": 5 * i + j, "kind": f"k{j % 2}"} for j in range(5)])
        with t.update_spec() as u:
            u.add_identity("kind")
        for i in range(3, 5):
            t.append([{"id": 5 * i + j, "kind": f"k{j % 2}"} for j in range(5)])
        before = sorted(t.scan().to_pylist(), key=lambda r: r["id"])

        def specs():
            return sorted({f["spec_id"] for f in t.inspect.files().to_pylist()})

        self.assertEqual(specs(), [0, 1])
        res = t.maintenance.rewrite_data_files(min_input_files=2)
        self.assertEqual(res["rewritten_data_files_count"], 7)
        self.assertEqual(specs(), [1])
        self.assertEqual(sorted(t.scan().to_pylist(), key=lambda r: r["id"]), before)
        self.assertEqual(t.scan(row_filter="kind = 'k1'").count(), 10)

        t.maintenance.rewrite_data_files(rewrite_all=True, output_spec_id=0)
        self.assertEqual(specs(), [0])
        self.assertEqual(sorted(t.scan().to_pylist(), key=lambda r: r["id"]), before)

        with self.assertRaises(FloeError) as e:
            t.maintenance.rewrite_data_files(output_spec_id=9)
        self.assertEqual(e.exception.code, Status.NOT_FOUND)


if __name__ == "__main__":
    unittest.main()
