"""docs/python.md is what tools/gen_api_docs.py makes of the package's
docstrings now, and its check fails as soon as a docstring changes."""

import io
import os
import shutil
import sys
import tempfile
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))

import floe  # noqa: E402
import gen_api_docs  # noqa: E402

DOCS = os.path.normpath(os.path.join(HERE, "..", "..", "..", "docs", "python.md"))


class ApiDocsTest(unittest.TestCase):
    def test_checked_in_reference_is_current(self):
        out = io.StringIO()
        self.assertTrue(gen_api_docs.check(DOCS, out), out.getvalue()[:3000])

    def test_a_changed_docstring_fails_the_check(self):
        tmp = tempfile.mkdtemp(prefix="floe-py-docs-")
        self.addCleanup(shutil.rmtree, tmp, True)
        path = os.path.join(tmp, "python.md")
        self.assertEqual(gen_api_docs.main(["--out", path]), 0)
        self.assertEqual(gen_api_docs.main(["--check", path]), 0)
        with mock.patch.object(floe.Table.scan, "__doc__", "Plans a scan, differently."):
            out = io.StringIO()
            self.assertFalse(gen_api_docs.check(path, out))
            self.assertIn("run `make docs`", out.getvalue())
            self.assertIn("+Plans a scan, differently.", out.getvalue())
            with mock.patch.object(sys, "stderr", io.StringIO()):
                self.assertEqual(gen_api_docs.main(["--check", path]), 1)
        self.assertTrue(gen_api_docs.check(path, io.StringIO()))  # the docstring back, the file current again

    def test_reference_covers_the_public_names(self):
        text = gen_api_docs.render()
        for name in ("floe.Table", "Table.scan(row_filter=None", "Scan.to_pandas(progress=None", "floe.Progress",
                     "floe.expressions.EqualTo", "floe.schema.Schema", "floe.types.NestedField",
                     "floe.partitioning.PartitionSpec", "floe.table.sorting.SortOrder", "MaintenanceTable.rewrite_data_files",
                     "UpdateSchema.add_column", "ManageSnapshots.create_tag", "InspectTable.snapshots",
                     "## Migrating from pyiceberg", "| `delete(delete_filter=AlwaysTrue()",
                     "Scan.use_ref(name)", "floe.table.refs.SnapshotRef"):
            self.assertIn(name, text)
        self.assertNotIn(" object at 0x", text)


if __name__ == "__main__":
    unittest.main()
