"""Multi-table transactions from Python (Catalog.commit_transaction over
floe_catalog_commit_transaction): two tables of a SQLite catalog move
together; a conflict on one commits neither and deletes what its appends
wrote; a filesystem warehouse refuses as UNSUPPORTED."""

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
    {"id": 2, "name": "j", "required": False, "type": "int"},
]}


def ids(t):
    return sorted(r["i"] for r in t.scan().to_pylist())


def data_files(t):
    root = os.path.join(t.metadata["location"], "data")
    out = []
    for d, _, names in os.walk(root):
        out += [os.path.join(d, n) for n in names]
    return sorted(out)


class CatalogTransactionTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="floe-py-multi-")
        self.cat = floe.load_catalog("py", uri="sqlite:" + os.path.join(self.dir, "catalog.db"),
                                     warehouse=os.path.join(self.dir, "wh"))
        self.cat.create_namespace("db")
        for name in ("orders", "totals"):
            self.cat.create_table("db." + name, SCHEMA).append([{"i": 1, "j": 0}])

    def tearDown(self):
        self.cat.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_two_tables_together(self):
        a, b = self.cat.load_table("db.orders"), self.cat.load_table("db.totals")
        ta, tb = a.transaction(), b.transaction()
        ta.set_properties(batch="7")
        with ta.update_schema() as u:
            u.add_column("note", "string")
        ta.append([{"i": 2, "j": 0}])  # written in the schema the transaction found
        tb.append([{"i": 20, "j": 0}, {"i": 21, "j": 0}])
        tables = self.cat.commit_transaction([ta, tb])
        self.assertEqual(tables, [a, b])
        self.assertTrue(ta.result["committed"] and tb.result["committed"])
        self.assertEqual(len(ta.result["snapshot_ids"]), 1)
        other = floe.load_catalog("py", uri="sqlite:" + os.path.join(self.dir, "catalog.db"))
        try:
            la, lb = other.load_table("db.orders"), other.load_table("db.totals")
            self.assertEqual(la.metadata_location, ta.result["metadata_location"])
            self.assertEqual(lb.metadata_location, tb.result["metadata_location"])
            self.assertEqual(la.metadata["properties"]["batch"], "7")
            current = [s for s in la.metadata["schemas"] if s["schema-id"] == la.metadata["current-schema-id"]][0]
            self.assertIn("note", [f["name"] for f in current["fields"]])
            self.assertEqual(ids(la), [1, 2])
            self.assertEqual(ids(lb), [1, 20, 21])
        finally:
            other.close()
        # The handles hold the committed versions.
        self.assertEqual(a.metadata_location, ta.result["metadata_location"])
        with self.assertRaises(ValueError):
            self.cat.commit_transaction([ta])

    def test_conflict_commits_neither(self):
        a, b = self.cat.load_table("db.orders"), self.cat.load_table("db.totals")
        before_a, before_b = a.metadata_location, b.metadata_location
        files_b = data_files(b)
        ta, tb = a.transaction(), b.transaction()
        with ta.update_schema() as u:
            u.add_column("mine", "string")
        tb.append([{"i": 40, "j": 0}])
        # Another writer changes orders' schema first.
        with self.cat.load_table("db.orders").update_schema() as u:
            u.add_column("theirs", "string")
        rival = self.cat.load_table("db.orders").metadata_location
        with self.assertRaises(FloeError) as cm:
            self.cat.commit_transaction([ta, tb])
        self.assertEqual(cm.exception.code, Status.CONFLICT)
        self.assertNotEqual(rival, before_a)
        self.assertEqual(self.cat.load_table("db.orders").metadata_location, rival)
        self.assertEqual(self.cat.load_table("db.totals").metadata_location, before_b)
        self.assertEqual(ids(self.cat.load_table("db.totals")), [1])
        # totals' append wrote a data file for the transaction only: gone.
        self.assertEqual(data_files(b), files_b)

    def test_refusals(self):
        a = self.cat.load_table("db.orders")
        t1 = a.transaction().set_properties(x="1")
        t2 = a.transaction().set_properties(x="2")
        with self.assertRaises(ValueError):
            self.cat.commit_transaction([t1, t2])
        with self.assertRaises(TypeError):
            self.cat.commit_transaction(["db.orders"])
        # A transaction with nothing to change commits nothing.
        empty = self.cat.load_table("db.totals").transaction()
        before = self.cat.load_table("db.totals").metadata_location
        self.cat.commit_transaction([empty])
        self.assertEqual(self.cat.load_table("db.totals").metadata_location, before)

    def test_warehouse_unsupported(self):
        wh = floe.load_catalog("wh", uri=os.path.join(self.dir, "warehouse"))
        try:
            wh.create_namespace("db")
            x, y = wh.create_table("db.x", SCHEMA), wh.create_table("db.y", SCHEMA)
            before = (x.metadata_location, y.metadata_location)
            tx, ty = x.transaction().set_properties(k="x"), y.transaction().set_properties(k="y")
            with self.assertRaises(FloeError) as cm:
                wh.commit_transaction([tx, ty])
            self.assertEqual(cm.exception.code, Status.UNSUPPORTED)
            self.assertEqual((wh.load_table("db.x").metadata_location, wh.load_table("db.y").metadata_location), before)
        finally:
            wh.close()


if __name__ == "__main__":
    unittest.main()
