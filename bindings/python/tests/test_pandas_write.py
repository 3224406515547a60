"""Table.append(pandas_df) with numpy and pandas only (pyarrow hidden, as
Debian's python3 has it): missing values of every pandas spelling become
nulls, numpy values their values, columns go as Arrow C data built from
numpy buffers (never the per-row JSON path), and what cannot be written
exactly is refused with nothing committed and no file left."""

import datetime
import os
import sys
import tempfile
import unittest
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import floe  # noqa: E402
from floe import FloeError  # noqa: E402

try:
    import numpy as np
    import pandas as pd
except ImportError:  # pragma: no cover
    pd = None

SCHEMA = {"type": "struct", "fields": [
    {"id": 1, "name": "id", "required": False, "type": "long"},
    {"id": 2, "name": "name", "required": False, "type": "string"},
    {"id": 3, "name": "score", "required": False, "type": "double"},
    {"id": 4, "name": "ts", "required": False, "type": "timestamp"},
    {"id": 5, "name": "tstz", "required": False, "type": "timestamptz"},
    {"id": 6, "name": "flag", "required": False, "type": "boolean"},
    {"id": 7, "name": "n", "required": False, "type": "int"},
    {"id": 8, "name": "d", "required": False, "type": "date"},
    {"id": 9, "name": "raw", "required": False, "type": "binary"},
]}

UTC = datetime.timezone.utc


def without_pyarrow():
    return mock.patch.dict(sys.modules, {"pyarrow": None})


def files_under(root):
    return sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs)


def no_json_rows(test):
    """Fails the test if a frame goes through the per-row JSON path."""
    def refuse(self, table, rows):
        raise AssertionError("the frame went through the JSON rows path")
    return mock.patch("floe._write._StreamArg._json_rows", refuse)


@unittest.skipIf(pd is None, "pandas or numpy is not installed")
class PandasAppendTest(unittest.TestCase):
    def setUp(self):
        self._dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self._dir.name, "t")
        self.table = floe.Table.create(self.path, SCHEMA)

    def tearDown(self):
        self.table.close()
        self._dir.cleanup()

    def rows(self):
        return sorted(self.table.refresh().scan().to_pylist(), key=lambda r: r["id"])

    def test_missing_values_and_numpy_scalars(self):
        df = pd.DataFrame({
            "id": np.array([1, 2, 3, 4], dtype=np.int64),
            "name": ["a", None, np.nan, "d\u00e9"],
            "score": [1.5, np.nan, None, 4.0],
            "ts": pd.to_datetime(["2024-01-31 12:00:00.000001", None, "2024-02-01", pd.NaT]),
            "tstz": pd.to_datetime(["2024-01-31T12:00:00+01:00", None, "2024-02-01T00:00:00Z", None], utc=True),
            "flag": pd.array([True, None, False, pd.NA], dtype="boolean"),
            "n": pd.array([7, pd.NA, -1, None], dtype="Int32"),
            "d": pd.to_datetime(["2024-01-31", None, "1969-12-31", "2000-02-29"]),
            "raw": [b"\x00\x01", None, b"", b"xyz"],
        })
        with without_pyarrow(), no_json_rows(self):
            self.table.append(df)
        want = [
            {"id": 1, "name": "a", "score": 1.5, "ts": datetime.datetime(2024, 1, 31, 12, 0, 0, 1),
             "tstz": datetime.datetime(2024, 1, 31, 11, tzinfo=UTC), "flag": True, "n": 7,
             "d": datetime.date(2024, 1, 31), "raw": b"\x00\x01"},
            {"id": 2, "name": None, "score": None, "ts": None, "tstz": None, "flag": None, "n": None,
             "d": None, "raw": None},
            {"id": 3, "name": None, "score": None, "ts": datetime.datetime(2024, 2, 1),
             "tstz": datetime.datetime(2024, 2, 1, tzinfo=UTC), "flag": False, "n": -1,
             "d": datetime.date(1969, 12, 31), "raw": b""},
            {"id": 4, "name": "d\u00e9", "score": 4.0, "ts": None, "tstz": None, "flag": None, "n": None,
             "d": datetime.date(2000, 2, 29), "raw": b"xyz"},
        ]
        got = self.rows()
        for g in got:
            if g["tstz"] is not None:
                g["tstz"] = g["tstz"].astimezone(UTC)
        self.assertEqual(got, want)

    def test_object_columns_of_numbers_and_an_int_column_with_a_gap(self):
        # A column of ints with a missing value is float64 in pandas, and
        # object columns of numpy scalars and None are common too.
        df = pd.DataFrame({"id": [1.0, 2.0, np.nan], "n": [np.int64(5), None, np.int32(6)],
                           "score": pd.Series([np.float32(0.5), pd.NA, 2], dtype=object)})
        with without_pyarrow(), no_json_rows(self):
            self.table.append(df)
        got = [(r["id"], r["n"], r["score"]) for r in self.table.refresh().scan().to_pylist()]
        self.assertEqual(sorted(got, key=lambda r: (r[0] is None, r[0] or 0)),
                         [(1, 5, 0.5), (2, None, None), (None, 6, 2.0)])

    def test_numpy_scalars_and_pandas_missing_values_in_dicts(self):
        with without_pyarrow():
            self.table.append([{"id": np.int64(7), "n": np.int32(3), "flag": np.bool_(True), "name": pd.NA,
                                "score": np.float32(0.25), "ts": pd.NaT}])
        self.assertEqual([(r["id"], r["n"], r["flag"], r["name"], r["score"], r["ts"]) for r in self.rows()],
                         [(7, 3, True, None, 0.25, None)])

    def test_a_frame_in_any_column_order_with_columns_left_out(self):
        df = pd.DataFrame({"name": ["x", "y"], "id": [2, 1]})
        with without_pyarrow():
            self.table.append(df)
        self.assertEqual([(r["id"], r["name"], r["score"]) for r in self.rows()], [(1, "y", None), (2, "x", None)])

    def test_all_missing_columns_of_any_dtype_are_nulls(self):
        nested = {"type": "struct", "fields": [
            {"id": 1, "name": "id", "required": False, "type": "long"},
            {"id": 2, "name": "tags", "required": False,
             "type": {"type": "list", "element-id": 3, "element": "string", "element-required": False}},
            {"id": 4, "name": "s", "required": False, "type": "string"},
        ]}
        with floe.Table.create(os.path.join(self._dir.name, "nulls"), nested) as t, without_pyarrow():
            t.append(pd.DataFrame({"id": [1, 2], "tags": [None, None], "s": [np.nan, np.nan]}))
            self.assertEqual(sorted(t.scan().to_pylist(), key=lambda r: r["id"]),
                             [{"id": 1, "tags": None, "s": None}, {"id": 2, "tags": None, "s": None}])
            # A column the table lacks is refused even when it holds only nulls.
            with self.assertRaises(FloeError) as cm:
                t.append(pd.DataFrame({"id": [3], "tagz": [None]}))
            self.assertIn("tagz", str(cm.exception))

    def test_nested_python_values_take_the_json_path(self):
        nested = {"type": "struct", "fields": [
            {"id": 1, "name": "id", "required": False, "type": "long"},
            {"id": 2, "name": "tags", "required": False,
             "type": {"type": "list", "element-id": 3, "element": "string", "element-required": False}},
            {"id": 4, "name": "p", "required": False, "type": {"type": "struct", "fields": [
                {"id": 5, "name": "x", "required": False, "type": "double"}]}},
        ]}
        nested["fields"].append({"id": 6, "name": "d", "required": False, "type": "date"})
        nested["fields"].append({"id": 7, "name": "n", "required": False, "type": "long"})
        with floe.Table.create(os.path.join(self._dir.name, "nested"), nested) as t, without_pyarrow():
            # id and n are float64 (a gap), d datetime64: converted as the
            # Arrow path converts them.
            t.append(pd.DataFrame({"id": [1.0, 2.0], "tags": [["a", None], None],
                                   "p": [{"x": np.float64(1.5)}, {"x": None}],
                                   "d": pd.to_datetime(["2024-01-31", None]), "n": [np.nan, 7.0]}))
            self.assertEqual(sorted(t.scan().to_pylist(), key=lambda r: r["id"]),
                             [{"id": 1, "tags": ["a", None], "p": {"x": 1.5}, "d": datetime.date(2024, 1, 31), "n": None},
                              {"id": 2, "tags": None, "p": {"x": None}, "d": None, "n": 7}])

    def test_refused_frames_commit_nothing_and_leave_no_file(self):
        before = files_under(self.path)
        bad = [
            ("unknown column", pd.DataFrame({"id": [1], "nmae": ["typo"]})),
            ("nanoseconds", pd.DataFrame({"id": [1], "ts": pd.to_datetime(["2024-01-01 00:00:00.000000001"])})),
            ("too wide for int", pd.DataFrame({"id": [1], "n": [2 ** 40]})),
            ("time of day into a date", pd.DataFrame({"id": [1], "d": pd.to_datetime(["2024-01-01 10:00"])})),
            ("duplicate names", pd.DataFrame([[1, 2]], columns=["id", "id"])),
            ("fraction into long", pd.DataFrame({"id": [1.5]})),
        ]
        for what, df in bad:
            with self.subTest(what), without_pyarrow():
                with self.assertRaises((FloeError, ValueError, TypeError)) as cm:
                    self.table.append(df)
                if what == "unknown column":
                    self.assertIn("nmae", str(cm.exception))
                self.assertIsNone(self.table.refresh().current_snapshot())
                self.assertEqual(files_under(self.path), before)


@unittest.skipIf(pd is None, "pandas or numpy is not installed")
class WriteFilesFromPandasTest(unittest.TestCase):
    def test_write_files_then_append_files(self):
        with tempfile.TemporaryDirectory() as d, floe.Table.create(os.path.join(d, "t"), SCHEMA) as t, \
                without_pyarrow(), no_json_rows(self):
            files = t.write_files(pd.DataFrame({"id": np.arange(1000), "name": ["v%d" % i for i in range(1000)]}))
            t.append_files(files)
            rows = t.scan(selected_fields=["id", "name"]).to_pylist()
        self.assertEqual(sorted((r["id"], r["name"]) for r in rows), [(i, "v%d" % i) for i in range(1000)])


if __name__ == "__main__":
    unittest.main()
