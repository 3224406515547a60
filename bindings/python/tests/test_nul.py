"""Strings that cross the C ABI are C strings, which end at the first NUL:
a name or path holding one would reach floe cut short
(("prod", "important\\x00junk") naming prod.important). Every such string
is refused with INVALID_ARGUMENT before the call, and nothing happens."""

import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import floe  # noqa: E402
from floe import FloeError, Status  # noqa: E402

SCHEMA = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "i", "required": False, "type": "int"},
]}


class NulTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="floe-py-nul-")
        self.uri = "sqlite:" + os.path.join(self.dir, "catalog.db")
        self.cat = floe.load_catalog("py", uri=self.uri, warehouse=os.path.join(self.dir, "wh"))
        self.cat.create_namespace("prod")
        self.table = self.cat.create_table("prod.important", SCHEMA)
        self.table.append([{"i": 1}])

    def tearDown(self):
        self.cat.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def refused(self, call, *args, **kwargs):
        with self.assertRaises(FloeError) as cm:
            call(*args, **kwargs)
        self.assertEqual(cm.exception.code, Status.INVALID_ARGUMENT, cm.exception)
        self.assertIn("NUL", str(cm.exception))

    def test_catalog_names(self):
        cut = ("prod", "important\x00junk")
        for call in (self.cat.drop_table, self.cat.purge_table, self.cat.load_table, self.cat.table_exists):
            self.refused(call, cut)
        self.refused(self.cat.drop_table, "prod.important\x00junk")
        self.refused(self.cat.rename_table, cut, ("prod", "other"))
        self.refused(self.cat.rename_table, ("prod", "important"), ("prod", "other\x00"))
        self.refused(self.cat.create_namespace, "prod\x00junk")
        self.refused(self.cat.drop_namespace, "prod\x00junk")
        self.refused(self.cat.list_tables, "prod\x00junk")
        self.refused(self.cat.create_table, ("prod", "new\x00junk"), SCHEMA)
        self.refused(self.cat.register_table, ("prod", "copy"), self.table.metadata_location + "\x00junk")
        # Nothing was dropped, renamed or made.
        self.assertEqual(self.cat.list_tables("prod"), [("prod", "important")])
        self.assertEqual(self.cat.list_namespaces(), [("prod",)])
        self.assertEqual(self.cat.load_table("prod.important").scan().to_pylist(), [{"i": 1}])

    def test_locations_and_uris(self):
        self.refused(floe.load_catalog, "py", uri=self.uri + "\x00junk")
        # A URI's password is not shown.
        with self.assertRaises(FloeError) as cm:
            floe.load_catalog("py", uri="postgresql://u:S3CRETVALUE@127.0.0.1:1/db\x00", warehouse=self.dir)
        self.assertNotIn("S3CRETVALUE", str(cm.exception))
        self.refused(floe.Table.open, os.path.join(self.dir, "wh", "prod", "important") + "\x00junk")
        # Inside JSON (properties, options) the NUL is escaped, and floe
        # refuses it there.
        self.refused(floe.load_catalog, "py", uri=self.uri, warehouse=self.dir + "\x00junk")
        # A row filter cut at its NUL would delete more than was asked.
        self.refused(self.table.delete_rows, "i = 2\x00 or i = 1")
        self.assertEqual(self.table.scan().to_pylist(), [{"i": 1}])


if __name__ == "__main__":
    unittest.main()
