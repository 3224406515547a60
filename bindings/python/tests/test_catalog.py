"""A SQLite catalog from Python, with pyiceberg's method names: namespaces,
create, append through the catalog, load through a second catalog,
rename, register, drop, and the errors by status."""

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
ROWS = [{"i": 1, "j": -1}, {"i": 2, "j": -1}, {"i": 3, "j": 5}]


def sorted_rows(t):
    return sorted(t.scan().to_pylist(), key=lambda r: r["i"])


class CatalogTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="floe-py-catalog-")
        self.uri = "sqlite:" + os.path.join(self.dir, "catalog.db")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_tables_through_the_catalog(self):
        cat = floe.load_catalog("py", uri=self.uri, warehouse=os.path.join(self.dir, "wh"))
        with self.assertRaises(FloeError) as cm:
            cat.create_table("db.t", SCHEMA)
        self.assertEqual(cm.exception.code, Status.NOT_FOUND)
        cat.create_namespace("db", {"owner": "py"})
        cat.create_namespace_if_not_exists("db")
        self.assertTrue(cat.namespace_exists("db"))
        t = cat.create_table("db.t", SCHEMA, partition_by=["j"])
        self.assertEqual(t.metadata["location"], os.path.join(self.dir, "wh", "db", "t"))
        t.append(ROWS, token="load-1")
        self.assertEqual(t.append(ROWS, token="load-1"), t.metadata["current-snapshot-id"])

        # A second catalog on the same database sees the commit; the
        # table outlives its catalog's handle and commits through it.
        other = floe.load_catalog("py", uri=self.uri)
        loaded = other.load_table(("db", "t"))
        other.close()
        self.assertEqual(sorted_rows(loaded), ROWS)
        loaded.append([{"i": 4, "j": 5}])
        self.assertEqual(sorted_rows(cat.load_table("db.t")), ROWS + [{"i": 4, "j": 5}])

        self.assertEqual(cat.list_namespaces(), [("db",)])
        self.assertEqual(cat.list_tables("db"), [("db", "t")])
        self.assertEqual(cat.load_namespace_properties("db"), {"owner": "py"})
        summary = cat.update_namespace_properties("db", removals=["owner", "nope"], updates={"team": "data"})
        self.assertEqual(summary, {"removed": ["owner"], "updated": ["team"], "missing": ["nope"]})
        self.assertEqual(cat.load_namespace_properties("db"), {"team": "data"})

        again = cat.create_table_if_not_exists("db.t", SCHEMA)
        self.assertEqual(again.metadata["table-uuid"], t.metadata["table-uuid"])
        moved = cat.rename_table("db.t", "db.u")
        self.assertEqual(len(sorted_rows(moved)), 4)
        self.assertFalse(cat.table_exists("db.t"))
        with self.assertRaises(FloeError) as cm:
            cat.load_table("db.t")
        self.assertEqual(cm.exception.code, Status.NOT_FOUND)
        with self.assertRaises(FloeError) as cm:
            cat.drop_namespace("db")
        self.assertEqual(cm.exception.code, Status.CONFLICT)

        location = moved.metadata_location
        cat.drop_table("db.u")
        registered = cat.register_table("db.back", location)
        self.assertEqual(len(sorted_rows(registered)), 4)
        metadata_file = registered.metadata_location
        self.assertTrue(os.path.exists(metadata_file))
        cat.purge_table("db.back")
        self.assertFalse(cat.table_exists("db.back"))
        self.assertFalse(os.path.exists(metadata_file), "purge left the metadata file")

    def test_load_catalog_errors(self):
        with self.assertRaises(FloeError) as cm:
            floe.load_catalog(uri="postgresql://u:hunter2@127.0.0.1:1/db", warehouse=self.dir, **{"connect_timeout": "1"})
        self.assertNotIn("hunter2", str(cm.exception))
        with self.assertRaises(FloeError) as cm:
            floe.load_catalog(type="rest", uri="http://127.0.0.1:1", **{"rest.max-attempts": "1"})
        self.assertEqual(cm.exception.code, Status.IO)
        self.assertIn("REST catalog default", str(cm.exception))
        with self.assertRaises(FloeError) as cm:
            floe.load_catalog(type="glue", uri="http://127.0.0.1:1")
        self.assertEqual(cm.exception.code, Status.UNSUPPORTED)
        with self.assertRaises(FloeError) as cm:
            floe.load_catalog(uri="mysql://x")
        self.assertEqual(cm.exception.code, Status.INVALID_ARGUMENT)


if __name__ == "__main__":
    unittest.main()


class CatalogTimeoutTest(unittest.TestCase):
    def test_a_stalled_rest_catalog_times_out(self):
        import socket
        import threading
        import time

        # A server that accepts and never answers: the REST catalog's
        # first request (its configuration) stalls.
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen(4)
        held = []
        stop = threading.Event()

        def accept():
            server.settimeout(0.1)
            while not stop.is_set():
                try:
                    held.append(server.accept()[0])
                except OSError:
                    pass

        t = threading.Thread(target=accept, daemon=True)
        t.start()
        try:
            uri = f"http://127.0.0.1:{server.getsockname()[1]}"
            start = time.monotonic()
            with self.assertRaises(FloeError) as caught:
                floe.load_catalog("stalled", uri=uri, **{"timeout-ms": "300"})
            took = time.monotonic() - start
            self.assertEqual(caught.exception.code, Status.TIMEOUT)
            self.assertLess(took, 2.0)
            self.assertGreaterEqual(took, 0.29)
            with self.assertRaises(FloeError) as caught:
                floe.load_catalog("bad", uri=uri, **{"timeout-ms": "soon"})
            self.assertEqual(caught.exception.code, Status.INVALID_ARGUMENT)
        finally:
            stop.set()
            t.join()
            for c in held:
                c.close()
            server.close()
