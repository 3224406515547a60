"""Runtime filters (Scan.add_filter) and scan metrics (Scan.metrics).
Expected answers for impala_iceberg_partitioned are Impala's
(iceberg-query.test, quoted in INDEX.md): 20 rows, `id > 10` → 10,
`action <> 'click'` → 14."""

import decimal
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import floe  # noqa: E402
from floe import FloeError, Status, _arrow  # noqa: E402

from fixtures import fixture  # noqa: E402

NOT_CLICK = {"type": "not-eq", "term": "action", "value": "click"}
METRIC_KEYS = {
    "manifests_skipped", "files_skipped", "files_planned", "row_groups_read", "row_groups_skipped",
    "pages_skipped", "bytes_read", "bytes_skipped", "rows_filtered", "rows_deleted", "rows_returned",
}


class AddFilterTest(unittest.TestCase):
    def setUp(self):
        self.table = fixture("impala_iceberg_partitioned").open()

    def tearDown(self):
        self.table.close()

    def test_text_narrows(self):
        scan = self.table.scan()
        self.assertEqual(scan.count(), 20)
        scan.add_filter("id > 10")
        rows = scan.to_pylist()
        self.assertEqual(len(rows), 10)
        self.assertTrue(all(r["id"] > 10 for r in rows), rows)
        self.assertEqual(len(rows), self.table.scan(row_filter="id > 10").count())

    def test_dict_narrows(self):
        scan = self.table.scan()
        scan.add_filter(NOT_CLICK)
        rows = scan.to_pylist()
        self.assertEqual(len(rows), 14)
        self.assertNotIn("click", {r["action"] for r in rows})
        self.assertEqual(len(rows), self.table.scan(row_filter=NOT_CLICK).count())

    def test_filters_add_up(self):
        both = self.table.scan(row_filter="id > 10 and action <> 'click'").count()
        # 10 rows have id > 10 and 14 are not clicks, of 20.
        self.assertTrue(4 <= both <= 10, both)
        for scan, added in ((self.table.scan(row_filter="id > 10"), [NOT_CLICK]),
                            (self.table.scan(), ["id > 10", NOT_CLICK])):
            for expr in added:
                scan.add_filter(expr)
            rows = scan.to_pylist()
            self.assertEqual(len(rows), both)
            self.assertTrue(all(r["id"] > 10 and r["action"] != "click" for r in rows), rows)

    def test_during_iteration(self):
        # One-row batches, one task at a time: the filter arrives while the
        # read is under way, through the same C scan.
        scan = self.table.scan(batch_size=1, threads=1)
        decoder = _arrow.Decoder(scan._iceberg_types())
        batches = scan._batches()
        field, batch = next(batches)
        ids = [r["id"] for r in decoder.batch_rows(field, batch)]
        before = len(ids)
        scan.add_filter("id > 10")
        for field, batch in batches:
            ids.extend(r["id"] for r in decoder.batch_rows(field, batch))
        # Rows already returned stay; the tasks not yet started apply the
        # filter; no matching row is lost.
        self.assertEqual(before, 1)
        self.assertLessEqual(len(ids), before + 10, ids)
        self.assertEqual(sorted(i for i in ids if i > 10), list(range(11, 21)))
        # A read started afterwards applies it to every row.
        self.assertEqual(sorted(r["id"] for r in scan.to_pylist()), list(range(11, 21)))

    def test_bad_filters_raise_floe_error(self):
        scan = self.table.scan()
        for bad, mention in (("nope > 1", "nope"), ("id >", "invalid filter"), ("", "empty"),
                             ({"type": "bogus", "term": "id", "value": 1}, "bogus"),
                             ({"type": "gt", "term": "nope", "value": 1}, "nope"),
                             ('{"type": "lt"', "JSON"), ("id > 1\0 or true", "NUL")):
            with self.subTest(bad=bad):
                with self.assertRaises(FloeError) as ctx:
                    scan.add_filter(bad)
                self.assertEqual(ctx.exception.code, Status.INVALID_ARGUMENT)
                self.assertIn(mention, ctx.exception.message)
        with self.assertRaises(FloeError) as ctx:
            scan.add_filter(10)  # neither text, a dict nor a floe.expressions expression
        self.assertEqual(ctx.exception.code, Status.INVALID_ARGUMENT)
        self.assertEqual(scan.count(), 20)  # refused filters left the scan as it was
        scan.close()
        for call in (lambda: scan.add_filter("id > 1"), scan.metrics):
            with self.assertRaises(FloeError) as ctx:
                call()
            self.assertEqual(ctx.exception.code, Status.INVALID_ARGUMENT)


class MetricsTest(unittest.TestCase):
    # The table is 20 one-row files, 10 of them with id > 10.
    def test_keys_and_counts(self):
        with fixture("impala_iceberg_partitioned").open() as t:
            scan = t.scan()
            before = scan.metrics()
            self.assertIsInstance(before, dict)
            self.assertLessEqual(METRIC_KEYS, set(before))
            self.assertTrue(all(isinstance(v, int) and v >= 0 for v in before.values()), before)
            self.assertEqual(before["rows_returned"], 0)
            # count() answers from the manifests: no row is read.
            self.assertEqual(scan.count(), 20)
            self.assertEqual(scan.metrics()["rows_returned"], 0)
            self.assertEqual(len(scan.to_pylist()), 20)
            after = scan.metrics()
            self.assertTrue(all(after[k] >= before[k] for k in METRIC_KEYS), (before, after))
            self.assertEqual(after["rows_returned"], 20)
            self.assertEqual(after["files_planned"], 20)
            self.assertEqual(after["rows_deleted"], 0)  # no deletes in this table

            scan = t.scan(row_filter="id > 10")
            self.assertEqual(scan.count(), 10)  # a filter to apply: read
            m = scan.metrics()
            self.assertEqual(m["rows_returned"], 10)
            self.assertEqual(m["files_skipped"] + m["files_planned"], 20)
            self.assertGreaterEqual(m["files_planned"], 10)

    def test_added_filter_counts_filtered_rows(self):
        with fixture("impala_iceberg_partitioned").open() as t:
            scan = t.scan()
            scan.add_filter("id > 10")
            self.assertEqual(scan.count(), 10)
            m = scan.metrics()
            self.assertEqual(m["rows_returned"], 10)
            # The other 10 rows were dropped by the filter, or never decoded:
            # their row groups, or (one row per file here) their files were
            # skipped.
            self.assertEqual(m["rows_filtered"] + m["row_groups_skipped"] + m["files_skipped"], 10)


class DecimalLiteralTest(unittest.TestCase):
    """A decimal.Decimal in a dict filter reaches a decimal(36, 23) column
    with all its digits, as the same number in text does; a float could
    only carry the double nearest pi, which is another row."""

    PI = decimal.Decimal("3.14159265358979323846264")

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="floe-py-decimal-")
        schema = {"type": "struct", "schema-id": 0, "fields": [
            {"id": 1, "name": "id", "required": True, "type": "long"},
            {"id": 2, "name": "c", "required": False, "type": "decimal(36, 23)"},
        ]}
        self.table = floe.Table.create(os.path.join(self.dir, "t"), schema)
        self.table.append([{"id": 0, "c": self.PI}, {"id": 1, "c": decimal.Decimal("3.141592653589793")},
                           {"id": 2, "c": decimal.Decimal("1")}])

    def tearDown(self):
        self.table.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def ids(self, row_filter):
        return sorted(r["id"] for r in self.table.scan(row_filter=row_filter).to_pylist())

    def test_decimal_filters_are_exact(self):
        for row_filter in (f"c = {self.PI}", f"c = '{self.PI}'", {"type": "eq", "term": "c", "value": self.PI},
                           {"type": "in", "term": "c", "values": [self.PI, decimal.Decimal("7.5")]}):
            self.assertEqual(self.ids(row_filter), [0], row_filter)
        self.assertEqual(self.ids({"type": "lt", "term": "c", "value": self.PI}), [1, 2])
        scan = self.table.scan()
        scan.add_filter({"type": "gt-eq", "term": "c", "value": self.PI})
        self.assertEqual(sorted(r["id"] for r in scan.to_pylist()), [0])
        self.assertEqual(self.ids({"type": "eq", "term": "c", "value": 3.141592653589793}), [1])
        with self.assertRaises(ValueError):
            self.table.scan(row_filter={"type": "eq", "term": "c", "value": decimal.Decimal("NaN")})


if __name__ == "__main__":
    unittest.main()
