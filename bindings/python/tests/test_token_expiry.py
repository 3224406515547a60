"""A commit token stays recognised after expiry removed the snapshot that
carried it: appends, appends of files written elsewhere and row deletes,
each retried with its token after expire_snapshots(retain_last=1), commit
nothing and return the snapshot that committed them."""

import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import floe  # noqa: E402

SCHEMA = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "i", "required": False, "type": "long"},
]}


class TokenExpiryTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="floe-py-tokens-")
        self.location = os.path.join(self.dir, "t")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_tokens_retried_after_expiry_commit_nothing(self):
        t = floe.Table.create(self.location, SCHEMA, format_version=2)
        committed = {}
        for k in range(3):
            committed[f"append-{k}"] = t.append([{"i": 10 * k}, {"i": 10 * k + 1}], token=f"append-{k}")
        files = t.write_files([{"i": 100}])
        committed["files"] = t.append_files(files, token="files")
        committed["delete"] = t.delete_rows("i = 1", token="delete", delete_mode="merge-on-read")
        t.append([{"i": 200}])  # the snapshot expiry keeps
        result = t.expire_snapshots(older_than_ms=2**62, retain_last=1)
        self.assertEqual(len(result["expired_snapshots"]), 5)
        t = floe.Table.open(self.location)
        head = t.current_snapshot().snapshot_id
        rows = sorted(r["i"] for r in t.scan().to_pylist())
        self.assertEqual(rows, [0, 10, 11, 20, 21, 100, 200])

        for k in range(3):
            self.assertEqual(t.append([{"i": 10 * k}, {"i": 10 * k + 1}], token=f"append-{k}"),
                             committed[f"append-{k}"])
        self.assertEqual(t.append_files(t.write_files([{"i": 100}]), token="files"), committed["files"])
        self.assertEqual(t.delete_rows("i = 0", token="delete"), committed["delete"])

        t = floe.Table.open(self.location)
        self.assertEqual(t.current_snapshot().snapshot_id, head)
        self.assertEqual(sorted(r["i"] for r in t.scan().to_pylist()), rows)


if __name__ == "__main__":
    unittest.main()
