"""Rows given as dicts bind to the table's columns by name: a key the
table lacks is refused naming it and the closest column, and nothing is
committed (it used to be dropped, the row stored with a null)."""

import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import floe  # noqa: E402
from floe import FloeError, Status  # noqa: E402

SCHEMA = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "id", "required": False, "type": "long"},
    {"id": 2, "name": "name", "required": False, "type": "string"},
    {"id": 3, "name": "info", "required": False, "type": {"type": "struct", "fields": [
        {"id": 4, "name": "city", "required": False, "type": "string"}]}},
]}


class BindByNameTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="floe-py-bind-")
        self.location = os.path.join(self.dir, "t")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def files(self):
        return sorted(os.path.join(d, f) for d, _, fs in os.walk(self.location) for f in fs)

    def test_unknown_key_is_refused_naming_the_closest(self):
        t = floe.Table.create(self.location, SCHEMA)
        t.append([{"id": 0, "name": "ok"}])
        before = self.files()
        cases = [
            ([{"id": 1, "nmae": "typo"}], '"nmae"', 'did you mean "name"'),
            ([{"id": 1, "info": {"citty": "x"}}], '"info.citty"', 'did you mean "info.city"'),
        ]
        for rows, column, hint in cases:
            with self.assertRaises(FloeError) as cm:
                t.append(rows)
            self.assertEqual(cm.exception.code, Status.INVALID_ARGUMENT)
            self.assertIn(column, str(cm.exception))
            self.assertIn(hint, str(cm.exception))
        self.assertEqual(self.files(), before)
        with floe.Table.open(self.location) as again:
            self.assertEqual(again.scan().to_pylist(), [{"id": 0, "name": "ok", "info": None}])

    def test_bad_value_names_line_and_column(self):
        t = floe.Table.create(self.location, SCHEMA)
        with self.assertRaises(FloeError) as cm:
            t.append([{"id": 1}, {"id": 2}, {"id": "three"}])
        self.assertEqual(cm.exception.code, Status.INVALID_ARGUMENT)
        self.assertIn('line 3, column "id": "three" is not a long', str(cm.exception))

    def test_scan_of_another_table_binds_by_name_not_field_id(self):
        # src's "user" has field id 2, which is n's "action": appending the
        # scan wrote users into action. Names decide; user is refused.
        src = floe.Table.create(os.path.join(self.dir, "src"), {"type": "struct", "schema-id": 0, "fields": [
            {"id": 1, "name": "id", "required": False, "type": "long"},
            {"id": 2, "name": "user", "required": False, "type": "string"}]})
        src.append([{"id": 1, "user": "alice"}])
        n = floe.Table.create(self.location, {"type": "struct", "schema-id": 0, "fields": [
            {"id": 1, "name": "id", "required": False, "type": "long"},
            {"id": 2, "name": "action", "required": False, "type": "string"}]})
        with self.assertRaises(FloeError) as cm:
            n.append(src.scan(selected_fields=("id", "user")))
        self.assertEqual(cm.exception.code, Status.INVALID_ARGUMENT)
        self.assertIn('"user"', str(cm.exception))
        self.assertEqual(n.scan().to_pylist(), [])
        # Same names, ids from another table: bound by name.
        n.append(src.scan(selected_fields=("id",)))
        self.assertEqual(n.scan().to_pylist(), [{"id": 1, "action": None}])


if __name__ == "__main__":
    unittest.main()
