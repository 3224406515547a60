"""A REST catalog from Python: SeaweedFS's weed mini (its Iceberg REST
catalog and its own S3), started for this module by the Go helper
internal/weedtest/weedserve, which finds weed as the Go tests do
($FLOE_WEED, PATH, the binary .ci/build-weed caches). Without weed the
tests skip, unless FLOE_REQUIRE_WEED is set (as CI sets it)."""

import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import floe  # noqa: E402
from floe import FloeError, Status  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))

SCHEMA = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "i", "required": False, "type": "int"},
    {"id": 2, "name": "j", "required": False, "type": "int"},
]}
ROWS = [{"i": 1, "j": -1}, {"i": 2, "j": -1}, {"i": 3, "j": 5}]


def sorted_rows(t):
    return sorted(t.scan().to_pylist(), key=lambda r: r["i"])


class RestCatalogTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = subprocess.Popen(["go", "run", "./internal/weedtest/weedserve"], cwd=REPO,
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        line = cls.server.stdout.readline()
        if not line:
            why = "weed mini did not start: " + cls.server.stderr.read().decode("utf-8", "replace")[-2000:]
            cls.server.wait()
            if os.environ.get("FLOE_REQUIRE_WEED"):
                raise RuntimeError(why + " (FLOE_REQUIRE_WEED is set)")
            raise unittest.SkipTest(why)
        info = json.loads(line)
        cls.uri = info["catalog"]
        cls.props = info["properties"]

    @classmethod
    def tearDownClass(cls):
        cls.server.stdin.close()
        try:
            cls.server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            cls.server.kill()
            cls.server.wait()
        cls.server.stdout.close()
        cls.server.stderr.close()

    def test_tables_through_rest(self):
        cat = floe.load_catalog("weed", type="rest", uri=self.uri, **self.props)
        ns = f"py_{os.getpid()}"
        cat.create_namespace(ns, {"owner": "py"})
        self.assertIn((ns,), cat.list_namespaces())
        t = cat.create_table(f"{ns}.t", SCHEMA, partition_by=["j"])
        self.assertTrue(t.metadata["location"].startswith("s3://"))
        t.append(ROWS, token="py-1")
        self.assertEqual(t.append(ROWS, token="py-1"), t.metadata["current-snapshot-id"])
        other = floe.load_catalog("weed", uri=self.uri, **self.props)
        self.assertEqual(sorted_rows(other.load_table((ns, "t"))), ROWS)
        t.replace_partitions([{"i": 9, "j": 5}])
        t.delete_rows("i = 1")
        self.assertEqual(sorted_rows(cat.load_table(f"{ns}.t")), [{"i": 2, "j": -1}, {"i": 9, "j": 5}])
        self.assertEqual(cat.list_tables(ns), [(ns, "t")])
        self.assertTrue(cat.table_exists(f"{ns}.t"))
        cat.drop_table(f"{ns}.t")
        self.assertFalse(cat.table_exists(f"{ns}.t"))
        cat.drop_namespace(ns)

    def test_commit_transaction_through_rest(self):
        # weed serves POST /v1/transactions/commit: two tables move together.
        cat = floe.load_catalog("weed", type="rest", uri=self.uri, **self.props)
        ns = f"py_multi_{os.getpid()}"
        cat.create_namespace(ns)
        a, b = cat.create_table(f"{ns}.a", SCHEMA), cat.create_table(f"{ns}.b", SCHEMA)
        ta, tb = a.transaction(), b.transaction()
        ta.set_properties(batch="1")
        ta.append(ROWS[:1])
        tb.append(ROWS[1:])
        cat.commit_transaction([ta, tb])
        self.assertEqual(cat.load_table(f"{ns}.a").metadata["properties"].get("batch"), "1")
        self.assertEqual(sorted_rows(cat.load_table(f"{ns}.a")), ROWS[:1])
        self.assertEqual(sorted_rows(cat.load_table(f"{ns}.b")), ROWS[1:])
        self.assertEqual(b.metadata_location, tb.result["metadata_location"])

    def test_refused_credentials(self):
        props = dict(self.props, credential="floeweedadmin:wrong-secret-value")
        with self.assertRaises(FloeError) as cm:
            floe.load_catalog("weed", uri=self.uri, **props).list_namespaces()
        self.assertEqual(cm.exception.code, Status.UNAUTHORIZED)
        self.assertNotIn("wrong-secret-value", str(cm.exception))
        with self.assertRaises(FloeError) as cm:
            floe.load_catalog("weed", type="rest", uri="sqlite:x.db")
        self.assertEqual(cm.exception.code, Status.INVALID_ARGUMENT)


if __name__ == "__main__":
    unittest.main()
