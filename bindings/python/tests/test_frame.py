"""Scan.to_pandas without pyarrow (floe._frame, floe._frame_objects): every
column type, nulls included, equal to what Scan.to_pylist gives for the
same rows, over one batch and many, on a table floe writes from JSON rows
(independent of the pandas writer) and on a 1 M-row table; the options
(date_as_object, dtype_backend, decimal_as_float); and append(df) of a
frame to_pandas returned going back as Arrow columns, never row by row."""

import datetime
import decimal
import inspect
import itertools
import json
import os
import sys
import tempfile
import unittest
import uuid
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import floe  # noqa: E402

try:
    import numpy as np
    import pandas as pd
except ImportError:  # pragma: no cover
    pd = None

D = decimal.Decimal
UTC = datetime.timezone.utc


def without_pyarrow():
    return mock.patch.dict(sys.modules, {"pyarrow": None})


def no_json_rows():
    def refuse(self, table, rows):
        raise AssertionError("the frame went through the JSON rows path")
    return mock.patch("floe._write._StreamArg._json_rows", refuse)


def field(i, name, t):
    return {"id": i, "name": name, "required": False, "type": t}


TYPES = {"type": "struct", "fields": [
    field(1, "id", "long"),
    field(2, "i", "int"),
    field(3, "f", "float"),
    field(4, "g", "double"),
    field(5, "b", "boolean"),
    field(6, "d38", "decimal(38, 10)"),
    field(7, "d9", "decimal(9, 2)"),
    field(8, "d18", "decimal(18, 0)"),
    field(9, "day", "date"),
    field(10, "ts", "timestamp"),
    field(11, "tstz", "timestamptz"),
    field(12, "s", "string"),
    field(13, "raw", "binary"),
    field(14, "fx", "fixed[3]"),
    field(15, "u", "uuid"),
    field(16, "xs", {"type": "list", "element-id": 17, "element": "int", "element-required": False}),
]}

STRINGS = ["", "a", "ascii text", "naïve café", "日本語のテキスト", "emoji 🐟 floe", "trailing nul\x00", "\x00",
           "x" * 300]
BINARIES = [b"", b"\x00", b"ab\x00", b"\x00\x00\x00", b"\xff\xfe", bytes(range(256))]
DECIMALS38 = [D("0E-10"), D("1.5000000000"), D("-1.5000000000"), D("9999999999999999999999999999.9999999999"),
              D("-9999999999999999999999999999.9999999999"), D("922337203.6854775807"), D("922337203.6854775808"),
              D("-922337203.6854775809"), D("0.0000000001")]
DAYS = [datetime.date(1, 1, 1), datetime.date(1900, 2, 28), datetime.date(1969, 12, 31), datetime.date(1970, 1, 1),
        datetime.date(2024, 2, 29), datetime.date(9999, 12, 31)]


def type_rows(n):
    """n rows cycling through awkward values of every type, a null in every
    column every seventh row or so (each column on its own rhythm), and
    repeated values so objects are shared."""
    rows = []
    for k in range(n):
        def maybe(v, period, phase=0):
            return None if (k + phase) % period == 0 else v
        rows.append({
            "id": k,
            "i": maybe(-(2 ** 31) + k if k % 2 else 2 ** 31 - 1 - k, 5, 1),
            "f": maybe(k / 8 - 3, 6, 2),
            "g": maybe(-1e300 * (k % 3) + k / 3, 7, 3),
            "b": maybe(k % 3 == 0, 4, 1),
            "d38": maybe(DECIMALS38[k % len(DECIMALS38)], 8, 5),
            "d9": maybe(D(k % 1000 - 500).scaleb(-2) * 3, 9, 2),
            "d18": maybe(D(10 ** 18 - 1 - k) if k % 2 else D(-(10 ** 18) + 1 + k), 10, 3),
            "day": maybe(DAYS[k % len(DAYS)], 7, 4),
            "ts": maybe(datetime.datetime(1969, 12, 31, 23, 59, 59, 999999) + datetime.timedelta(seconds=k * 3601), 5),
            "tstz": maybe(datetime.datetime(2000, 1, 1, tzinfo=UTC) - datetime.timedelta(microseconds=k * 977), 7),
            "s": maybe(STRINGS[k % len(STRINGS)] + ("" if k % 3 else str(k)), 8, 1),
            "raw": maybe(BINARIES[k % len(BINARIES)], 5, 4),
            "fx": maybe(bytes([k % 256, 0, (k * 7) % 3]), 6, 5),
            "u": maybe(uuid.UUID(int=k * 0x10001), 9, 8),
            "xs": maybe([k, None, -k] if k % 2 else [], 4, 3),
        })
    return rows


def comparable(name, v):
    """A pandas cell or a to_pylist value in one form: None for missing,
    timestamps as (microseconds since the epoch, aware), Decimals as
    their text (the scale counts), numpy scalars as Python values."""
    if v is None or v is pd.NaT or v is pd.NA or (isinstance(v, float) and v != v):
        return None
    if isinstance(v, (pd.Timestamp, datetime.datetime)):
        ts = pd.Timestamp(v)
        return (ts.value // 1000, ts.tz is not None)
    if isinstance(v, D):
        return ("decimal", str(v))
    if isinstance(v, np.ndarray):
        return [comparable(name, x) for x in v.tolist()]
    if isinstance(v, list):
        return [comparable(name, x) for x in v]
    if isinstance(v, (str, bytes)):
        return (type(v).__name__, v)  # a str never equals bytes, whatever their text
    if hasattr(v, "item"):
        return v.item()
    return v


def same_list(test, got, want):
    """assertEqual for long lists, naming the first difference (unittest's
    diff of two long lists takes minutes)."""
    test.assertEqual(len(got), len(want))
    if got != want:
        bad = next(i for i, (a, b) in enumerate(zip(got, want)) if a != b)
        test.fail(f"item {bad}: got {got[bad]!r}, want {want[bad]!r}")


def assert_frame_matches_rows(test, df, rows, columns):
    test.assertEqual(len(df), len(rows))
    test.assertEqual(list(df.columns), columns)
    for name in columns:
        got = [comparable(name, v) for v in df[name].tolist()]
        want = [comparable(name, r[name]) for r in rows]
        if got != want:
            bad = next(i for i, (a, b) in enumerate(zip(got, want)) if a != b)
            test.fail(f"column {name!r} row {bad}: to_pandas {got[bad]!r}, to_pylist {want[bad]!r}")


@unittest.skipIf(pd is None, "pandas or numpy is not installed")
class FrameTypesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._dir = tempfile.TemporaryDirectory()
        cls.table = floe.Table.create(os.path.join(cls._dir.name, "types"), TYPES)
        cls.table.append(type_rows(3000))
        cls.table = cls.table.refresh()
        cls.columns = [f["name"] for f in TYPES["fields"]]

    @classmethod
    def tearDownClass(cls):
        cls.table.close()
        cls._dir.cleanup()

    def test_every_type_matches_to_pylist_in_one_batch_and_many(self):
        rows = self.table.scan().to_pylist()
        self.assertEqual(len(rows), 3000)
        for batch_size in (None, 7, 1000):
            with self.subTest(batch_size=batch_size), without_pyarrow():
                scan = self.table.scan(batch_size=batch_size) if batch_size else self.table.scan()
                assert_frame_matches_rows(self, scan.to_pandas(), rows, self.columns)

    def test_dtypes_and_missing_values(self):
        with without_pyarrow():
            df = self.table.scan().to_pandas()
        self.assertEqual(str(df["i"].dtype), "Int32")  # nulls: pandas' masked ints
        self.assertEqual(df["id"].dtype, np.int64)
        self.assertEqual(str(df["b"].dtype), "boolean")
        self.assertEqual(df["g"].dtype, np.float64)
        self.assertEqual(str(df["ts"].dtype), "datetime64[ns]")
        self.assertEqual(str(df["tstz"].dtype), "datetime64[ns, UTC]")
        for name in ("d38", "d9", "d18", "day", "s", "raw", "fx", "u", "xs"):
            self.assertEqual(df[name].dtype, object, name)
        self.assertIsNone(df["s"][7])  # row 7: null in s
        self.assertIsNone(df["d38"][3])
        self.assertIsNone(df["day"][3])
        self.assertTrue(np.isnan(df["g"][4]))
        self.assertIs(df["ts"][0], pd.NaT)
        self.assertEqual(df["day"][1], datetime.date(1900, 2, 28))
        self.assertEqual(type(df["day"][1]), datetime.date)
        self.assertEqual(df["s"][3], "naïve café3")
        self.assertEqual(df["s"][16], "\x00")  # NUL-ended values kept whole
        self.assertEqual(df["raw"][2], b"ab\x00")
        self.assertEqual(str(df["d38"][4]), "-9999999999999999999999999999.9999999999")
        self.assertEqual(df["u"][2], uuid.UUID(int=2 * 0x10001))

    def test_repeated_values_share_one_object(self):
        with without_pyarrow():
            df = self.table.scan(batch_size=500).to_pandas()
        days = df["day"]
        firsts = {}
        for i in range(len(days)):
            v = days[i]
            if v is not None:
                self.assertIs(firsts.setdefault(v, v), v, f"row {i}: {v} not shared across batches")
        self.assertEqual(len(firsts), len({r["day"] for r in self.table.scan().to_pylist()} - {None}))

    def test_options(self):
        # Days pandas' datetime64[ns] can hold (pandas 1.x), or nulls.
        in_range = "day is null or (day >= '1678-01-01' and day < '2262-01-01')"
        columns = ["id", "g", "d9", "d38", "day", "s", "i", "b"]
        rows = self.table.scan(row_filter=in_range, selected_fields=columns).to_pylist()
        self.assertGreater(len(rows), 1000)
        with without_pyarrow():
            with self.assertRaises(pd.errors.OutOfBoundsDatetime):  # as pyarrow refuses them
                self.table.scan(selected_fields=["day"]).to_pandas(date_as_object=False)
            scan = self.table.scan(row_filter=in_range, selected_fields=columns)
            floats = scan.to_pandas(decimal_as_float=True)
            dates = scan.to_pandas(date_as_object=False)
            nullable = scan.to_pandas(dtype_backend="numpy_nullable")
            with self.assertRaises(TypeError):
                scan.to_pandas(types_mapper=str)
            with self.assertRaises(ValueError):
                scan.to_pandas(dtype_backend="pyarrow")
            scan.to_pandas(use_threads=False, split_blocks=True)  # pyarrow's switches: ignored
        self.assertEqual(floats["d9"].dtype, np.float64)
        self.assertEqual(floats["d38"].dtype, np.float64)
        want = [float(r["d9"]) if r["d9"] is not None else None for r in rows]
        self.assertEqual([None if v != v else v for v in floats["d9"].tolist()], want)
        want38 = [float(r["d38"]) if r["d38"] is not None else None for r in rows]
        got38 = [None if v != v else v for v in floats["d38"].tolist()]
        for got, exp in zip(got38, want38):
            self.assertTrue(got == exp or (got is not None and abs(got - exp) <= abs(exp) * 1e-15), (got, exp))
        self.assertEqual(dates["day"].dtype.kind, "M")
        self.assertEqual([None if v is pd.NaT else v.date() for v in dates["day"]], [r["day"] for r in rows])
        self.assertEqual(str(nullable["s"].dtype), "string")
        self.assertEqual([None if v is pd.NA else v for v in nullable["s"]], [r["s"] for r in rows])
        self.assertEqual(str(nullable["id"].dtype), "Int64")
        self.assertEqual(str(nullable["g"].dtype), "Float64")
        self.assertEqual(str(nullable["b"].dtype), "boolean")
        self.assertEqual([None if v is pd.NA else v for v in nullable["g"]], [r["g"] for r in rows])

    def test_empty_scan_keeps_the_columns_and_their_kinds(self):
        with without_pyarrow():
            df = self.table.scan(row_filter="id < 0").to_pandas()
            floats = self.table.scan(row_filter="id < 0").to_pandas(decimal_as_float=True, date_as_object=False)
        self.assertEqual(list(df.columns), self.columns)
        self.assertEqual(len(df), 0)
        self.assertEqual(floats["d9"].dtype, np.float64)
        self.assertEqual(floats["day"].dtype.kind, "M")

    def test_append_of_a_to_pandas_frame_goes_as_arrow_columns(self):
        columns = ["id", "i", "g", "b", "d38", "d9", "d18", "day", "ts", "tstz", "s", "raw"]
        schema = {"type": "struct", "fields": [f for f in TYPES["fields"] if f["name"] in columns]}
        with without_pyarrow():
            df = self.table.scan(selected_fields=columns).to_pandas()
        want = self.table.scan(selected_fields=columns).to_pylist()
        with tempfile.TemporaryDirectory() as d, floe.Table.create(os.path.join(d, "copy"), schema) as copy, \
                without_pyarrow(), no_json_rows():
            copy.append(df)
            got = copy.refresh().scan().to_pylist()
        self.assertEqual(sorted(got, key=lambda r: r["id"]), want)


@unittest.skipIf(pd is None, "pandas or numpy is not installed")
class BatchByBatchTest(unittest.TestCase):
    """to_pandas converts each batch as a thread of its own reads the next
    (floe._frame_prefetch): values shared across batches, errors of the
    read raised in the caller, nothing of the scan left behind."""

    def setUp(self):
        self._dir = tempfile.TemporaryDirectory()
        schema = {"type": "struct", "fields": [field(1, "id", "long"), field(2, "flag", "string"),
                                               field(3, "q", "decimal(9, 2)"), field(4, "day", "date")]}
        self.table = floe.Table.create(os.path.join(self._dir.name, "t"), schema)
        for part in range(3):  # three files, read in turn
            self.table.append([{"id": part * 1000 + i, "flag": "AB"[i % 2] + "x" * (i % 3),
                                "q": D(i % 7).scaleb(-2), "day": datetime.date(2000 + part, 1, 1 + i % 28)}
                               for i in range(1000)])
        self.table = self.table.refresh()

    def tearDown(self):
        self.table.close()
        self._dir.cleanup()

    def test_repeated_values_are_one_object_across_batches(self):
        with without_pyarrow():
            df = self.table.scan(batch_size=100).to_pandas()
        self.assertEqual(len(df), 3000)
        for name, distinct in (("flag", 6), ("q", 7), ("day", 84)):
            with self.subTest(column=name):
                self.assertEqual(len({id(v) for v in df[name]}), distinct)
        assert_frame_matches_rows(self, df, self.table.scan(batch_size=100).to_pylist(), ["id", "flag", "q", "day"])

    def test_a_failed_read_is_raised_and_leaves_nothing_open(self):
        files = [t.file.file_path for t in self.table.scan().plan_files()]
        self.assertEqual(len(files), 3)
        scan = self.table.scan(batch_size=100)
        os.remove(files[-1][len("file:"):] if files[-1].startswith("file:") else files[-1])
        with without_pyarrow(), self.assertRaises(floe.FloeError):
            scan.to_pandas()
        scan.close()
        self.assertNothingHeld()

    def test_a_frame_of_numbers_is_read_in_batches_it_can_keep(self):
        # Numbers only: one stream batch of up to 64 MiB (three files of
        # 1000 rows: one batch each), each column a join of three, not of
        # 30 batches of 100; with a string column, or the caller's own
        # batch size, the scan's batches of 100.
        seen = []
        real = floe._table.library

        class Counting:
            def __init__(self, lib):
                self._lib = lib

            def __getattr__(self, name):
                fn = getattr(self._lib, name)
                if name != "floe_scan_stream_options":
                    return fn
                return lambda scan, options, out: (seen.append(json.loads(options)), fn(scan, options, out))[1]

        def frame(**scan_options):
            seen.clear()
            with without_pyarrow(), mock.patch.object(floe._table, "library", lambda: Counting(real())):
                return self.table.scan(**scan_options).to_pandas(), list(seen)

        numbers, options = frame(selected_fields=["id"])
        self.assertEqual(options, [{"batch_size": (64 << 20) // 8}])
        self.assertEqual(len(numbers), 3000)
        for scan_options in ({"selected_fields": ["id", "flag"]}, {"selected_fields": ["id"], "batch_size": 100}):
            with self.subTest(**scan_options):
                df, options = frame(**scan_options)
                self.assertEqual(options, [])
                self.assertEqual(df["id"].tolist(), numbers["id"].tolist())

    def test_a_caller_stopping_early_leaves_nothing_open(self):
        from floe import _frame_prefetch

        calls = []

        def progress(p):
            calls.append(p)
            if len(calls) == 5:
                raise KeyboardInterrupt("stop")  # raised on the reading thread, re-raised in the caller

        with without_pyarrow(), self.assertRaises(KeyboardInterrupt):
            self.table.scan(batch_size=100).to_pandas(progress=progress)
        self.assertEqual(len(calls), 5)
        self.assertNothingHeld()
        # The caller giving up after two batches: the reader is stopped and
        # the stream released, though more batches were coming.
        scan = self.table.scan(batch_size=100)
        batches = _frame_prefetch.prefetched(scan._batches(), lambda f, b: (f, b.length))
        self.assertEqual([n for _, n in itertools.islice(batches, 2)], [100, 100])
        batches.close()
        scan.close()
        self.assertNothingHeld()

    def test_a_small_first_batch_does_not_choose_the_string_path(self):
        # The newest file is read first; its one or two rows say nothing of
        # the column's values, so later batches still share their repeated ones.
        for first in ([{"id": -1, "flag": "SHIP"}], [{"id": -3, "flag": "SHIP"}, {"id": -2, "flag": "RAIL"}]):
            with self.subTest(first_rows=len(first)):
                self.table.append(first)
                self.table = self.table.refresh()
                with without_pyarrow():
                    df = self.table.scan(batch_size=100).to_pandas()
                self.assertEqual(df["id"].iloc[0], first[0]["id"])  # the small batch came first
                self.assertEqual(len({id(v) for v in df["flag"][df["id"] >= 0]}), 6)
                assert_frame_matches_rows(self, df, self.table.scan(batch_size=100).to_pylist(),
                                          ["id", "flag", "q", "day"])

    def assertNothingHeld(self):
        import threading

        self.assertEqual([t.name for t in threading.enumerate() if t.name == "floe-to-pandas"], [])
        stats = floe.runtime_stats()
        self.assertEqual(stats["batches"], 0, stats)
        self.assertEqual(stats["handles"], 1, stats)  # the table's


@unittest.skipIf(pd is None, "pandas or numpy is not installed")
class BulkConversionTest(unittest.TestCase):
    """floe._frame_objects' paths one by one against per-value Python on
    random data (each path forced, as a table's data would pick only one)."""

    def random_values(self, rng, n, repeated):
        alphabet = ["a", "Z", " ", "é", "日", "🐟", "\x00", "\x1f", "\x7f", "~"]
        pool = ["".join(rng.choice(alphabet, size=rng.integers(0, 12))) for _ in range(n if not repeated else 7)]
        return [pool[i] for i in rng.integers(0, len(pool), n)]

    def arrow(self, values):
        raw = [v.encode("utf-8") if isinstance(v, str) else v for v in values]
        offsets = np.zeros(len(raw) + 1, np.int64)
        np.cumsum([len(r) for r in raw], out=offsets[1:])
        return offsets, np.frombuffer(b"".join(raw) or b"", np.uint8)

    def test_strings_and_binaries_on_every_path(self):
        from floe import _frame_objects as fo

        rng = np.random.default_rng(31)
        for repeated in (False, True):
            for decode in (True, False):
                values = self.random_values(rng, 5000, repeated)
                if not decode:
                    values = [v.encode("utf-8")[::-1] for v in values]  # not UTF-8 any more
                offsets, data = self.arrow(values)
                for path in ("distinct", "repeated"):
                    # Sharing allowed up to every row, or never.
                    with self.subTest(repeated=repeated, decode=decode, path=path), \
                            mock.patch.object(fo, "_most_shared", lambda n: n if path == "repeated" else 0):
                        got = fo.array(fo.strings(offsets, data, decode))
                        same_list(self, got.tolist(), values)
                        if path == "repeated" and repeated:
                            self.assertLess(len({id(v) for v in got}), 8)  # one object per distinct value

    def test_every_byte_and_length_on_the_repeated_path(self):
        from floe import _frame_objects as fo

        # Values of every length around the hash's 8- and 16-byte words,
        # differing only in one byte (first, middle or last), so a key
        # that missed any byte would share a wrong object; and flags of
        # every single byte.
        base = bytes(range(1, 80))
        values = [b""]
        for n in (1, 2, 7, 8, 9, 15, 16, 17, 24, 25, 63, 64, 65, 79):
            for at in {0, n // 2, n - 1}:
                values += [base[:n], base[:at] + b"\x00" + base[at + 1:n]]
        values += [bytes([i]) for i in range(256)]
        values = values * 3
        offsets, data = self.arrow(values)
        with mock.patch.object(fo, "_most_shared", lambda n: n):
            got = fo.array(fo.strings(offsets, data, False))
            same_list(self, got.tolist(), values)
            self.assertEqual(len({id(v) for v in got}), len(set(values)))
            flags = [bytes([i % 128]) for i in range(300)] + [b""]
            offsets, data = self.arrow(flags)
            same_list(self, fo.array(fo.strings(offsets, data, True)).tolist(), [f.decode() for f in flags])

    def test_bad_text_and_offsets_are_refused_on_both_paths(self):
        from floe import _frame_objects as fo

        # Invalid UTF-8 is UnicodeDecodeError, as bytes.decode gives, and
        # every object made before it is freed with the array.
        offsets, data = self.arrow([b"ok", b"\xff\xfe", b"ok"] * 50)
        for most in (lambda n: n, lambda n: 0):
            with self.subTest(shared=most(2) > 0), mock.patch.object(fo, "_most_shared", most), \
                    self.assertRaises(UnicodeDecodeError):
                fo.strings(offsets, data, True)
        # Offsets leaving the data are refused by libfloe, not read.
        bad = np.array([0, 2, 400], np.int64)
        with self.assertRaises(floe.FloeError) as ctx:
            fo.strings(bad, data, True)
        self.assertEqual(ctx.exception.code, floe.Status.INVALID_ARGUMENT)
        with self.assertRaises(ValueError):
            fo.binary_objects(bad[:-1], bad[1:], data, False)
        # The objects made share nothing with the buffer: they outlive it.
        offsets, data = self.arrow(["kept", "values"])
        data = data.copy()
        got = fo.binary_objects(offsets[:-1], offsets[1:], data, True)
        data[:] = 0
        self.assertEqual(got.tolist(), ["kept", "values"])
        # Each object is held by the array alone, as in an array numpy made.
        made = np.array(["".join(["ke", "pt"]), "".join(["val", "ues"])], dtype=object)
        self.assertEqual([sys.getrefcount(v) for v in got], [sys.getrefcount(v) for v in made])

    def test_joining_interrupted_anywhere_keeps_reference_counts_exact(self):
        # An exception (a debugger's Ctrl-C) raised at every line of joined
        # in turn: wherever it lands, each object is owned once by whatever
        # array holds it, so nothing is freed twice or leaked.
        from floe import _frame_objects as fo

        first = fo.joined.__code__.co_firstlineno
        lines = range(first, first + len(inspect.getsource(fo.joined).splitlines()))
        for line in lines:
            value = "".join(["un", "ique"])
            base = sys.getrefcount(value)
            parts = [np.array([value] * 3, dtype=object), np.array([value] * 2, dtype=object),
                     fo.Spread(np.array([value], dtype=object), np.zeros(2, np.int64))]

            def tracer(frame, event, arg):
                if frame.f_code is not fo.joined.__code__:
                    return None

                def local(frame, event, arg):
                    if event == "line" and frame.f_lineno == line:
                        raise KeyboardInterrupt("at line %d" % line)
                    return local
                return local

            sys.settrace(tracer)
            try:
                got = fo.joined(parts)
            except KeyboardInterrupt:
                got = None
            finally:
                sys.settrace(None)
            with self.subTest(line=line):
                if got is not None:
                    self.assertEqual(got.tolist(), [value] * 7)
                held = sum(1 for p in parts[:2] for v in p if v is value) + 1 + (7 if got is not None else 0)
                self.assertEqual(sys.getrefcount(value) - base, held)
                del got, parts
                self.assertEqual(sys.getrefcount(value), base)

    def test_datetimes_made_nanoseconds_as_pandas_would(self):
        from floe import _frame

        for unit, per in (("D", 86_400 * 10 ** 9), ("s", 10 ** 9), ("ms", 10 ** 6), ("us", 10 ** 3)):
            limit = (2 ** 63 - 1) // per
            for ints in ([0, -1, 19_000, -limit, limit], [5, _frame._NAT, -7], [limit + 1, 0], [0, -limit - 1]):
                values = np.array(ints, np.int64).view(f"datetime64[{unit}]")
                with self.subTest(unit=unit, ints=ints):
                    got = _frame._nanoseconds(values)
                    if abs(ints[0]) > limit or abs(ints[-1]) > limit:
                        self.assertIs(got, values)  # left to pandas, which refuses them
                        with self.assertRaises(pd.errors.OutOfBoundsDatetime):
                            pd.Series(values)
                    else:
                        self.assertEqual(got.dtype, np.dtype("datetime64[ns]"))
                        self.assertEqual(pd.Series(got).tolist(), pd.Series(values).tolist())

    def test_decimals_wide_and_narrow(self):
        from floe import _frame_objects as fo

        rng = np.random.default_rng(5)
        for wide in (False, True):
            for repeated in (False, True):
                n = 3000
                small = rng.integers(-(2 ** 63), 2 ** 63 - 1, 4 if repeated else n, dtype=np.int64)
                small = small[rng.integers(0, len(small), n)]
                ints = [int(v) * (10 ** 19 + 3 if wide and k % 2 else 1) for k, v in enumerate(small.tolist())]
                raw = b"".join(i.to_bytes(16, "little", signed=True) for i in ints)
                words = np.frombuffer(raw, "<u8").reshape(-1, 2)
                lo, hi = words[:, 0].copy(), words[:, 1].view(np.int64).copy()
                for scale in (0, 2, 38):
                    with self.subTest(wide=wide, repeated=repeated, scale=scale):
                        got = fo.array(fo.decimals(lo, hi, scale))
                        want = [D(i).scaleb(-scale, decimal.Context(prec=100)) for i in ints]
                        same_list(self, [str(v) for v in got], [str(v) for v in want])
                        floats = fo.decimals_as_float(lo, hi, scale)
                        np.testing.assert_allclose(floats, [float(v) for v in want], rtol=1e-15)


@unittest.skipIf(pd is None, "pandas or numpy is not installed")
class PandasDecimalAndDateAppendTest(unittest.TestCase):
    def setUp(self):
        self._dir = tempfile.TemporaryDirectory()
        schema = {"type": "struct", "fields": [field(1, "id", "long"), field(2, "p", "decimal(38, 10)"),
                                               field(3, "q", "decimal(9, 2)"), field(4, "day", "date")]}
        self.table = floe.Table.create(os.path.join(self._dir.name, "t"), schema)

    def tearDown(self):
        self.table.close()
        self._dir.cleanup()

    def test_decimals_and_dates_exact_with_nulls(self):
        df = pd.DataFrame({
            "id": [1, 2, 3, 4],
            "p": [D("1234567890123456789012345678.0123456789"), None, D("-0.5"), D("-1E-10")],
            "q": [D("1.5"), D("-9999999.99"), np.nan, D("0")],
            "day": [datetime.date(1969, 12, 31), None, datetime.date(1, 1, 1), datetime.date(9999, 12, 31)],
        })
        with without_pyarrow(), no_json_rows():
            self.table.append(df)
        rows = sorted(self.table.refresh().scan().to_pylist(), key=lambda r: r["id"])
        self.assertEqual([str(r["p"]) for r in rows], ["1234567890123456789012345678.0123456789", "None",
                                                       "-0.5000000000", "-1E-10"])
        self.assertEqual([str(r["q"]) for r in rows], ["1.50", "-9999999.99", "None", "0.00"])
        self.assertEqual([r["day"] for r in rows], list(df["day"]))

    def test_values_that_would_round_or_overflow_are_refused(self):
        for value, why in ((D("1.234"), "rounding"), (D("12345678.00"), "9 digits"), (D("Infinity"), "rounding")):
            with self.subTest(value=value), without_pyarrow(), self.assertRaises(ValueError) as ctx:
                self.table.append(pd.DataFrame({"id": [1], "q": [value]}))
            self.assertIn("'q'", str(ctx.exception))
            self.assertIn(why, str(ctx.exception))
        self.assertEqual(self.table.refresh().scan().to_pylist(), [])


@unittest.skipIf(pd is None, "pandas or numpy is not installed")
class MillionRowsTest(unittest.TestCase):
    """A 1 M-row table of lineitem's kinds of columns with nulls, written
    from a pandas frame: to_pandas equals to_pylist row for row."""

    ROWS = 1_000_000

    def test_a_million_rows_match_to_pylist(self):
        n = self.ROWS
        rng = np.random.default_rng(7)
        nulls = rng.random((6, n)) < 0.03
        cents = rng.integers(-10 ** 9, 10 ** 9, n)
        big = rng.integers(0, 2, n)
        words = np.array(["furiously", "régulier", "accounts", "sleep", "日本", "", "final deposits"], dtype=object)
        text = words[rng.integers(0, len(words), n)] + np.array([str(k % 977) for k in range(n)], dtype=object)
        decimals = pd.Series(cents).map(lambda c: D(int(c)).scaleb(-2))
        wide = pd.Series(cents * big).map(lambda c: D(int(c) * 10 ** 20 + 7).scaleb(-6, floe_exact()))
        days = np.datetime64("1965-01-01") + rng.integers(0, 30_000, n).astype("timedelta64[D]")
        df = pd.DataFrame({
            "k": pd.array(np.arange(n), dtype="Int64"),
            "price": decimals.where(~nulls[0], None),
            "wide": wide.where(~nulls[1], None),
            "note": pd.Series(text).where(~nulls[2], None),
            "day": pd.Series(days).dt.date.where(~nulls[3], None),
            "at": pd.Series(np.datetime64("1960-01-01T00:00:00", "us") + rng.integers(0, 2 ** 40, n).astype(
                "timedelta64[us]")).dt.tz_localize("UTC").where(~nulls[4]),
            "ok": pd.array(rng.random(n) < 0.5, dtype="boolean"),
        })
        df.loc[nulls[0], "k"] = pd.NA
        df.loc[nulls[5], "ok"] = pd.NA
        schema = {"type": "struct", "fields": [
            field(1, "k", "long"), field(2, "price", "decimal(15, 2)"), field(3, "wide", "decimal(38, 6)"),
            field(4, "note", "string"), field(5, "day", "date"), field(6, "at", "timestamptz"),
            field(7, "ok", "boolean")]}
        with tempfile.TemporaryDirectory() as d, floe.Table.create(os.path.join(d, "m"), schema) as t, \
                without_pyarrow(), no_json_rows():
            t.append(df)
            t = t.refresh()
            frame = t.scan().to_pandas()
            rows = t.scan().to_pylist()
        assert_frame_matches_rows(self, frame, rows, list(df.columns))
        self.assertEqual(str(frame["k"].dtype), "Int64")
        self.assertEqual(int(frame["price"].isna().sum()), int(nulls[0].sum()))


def floe_exact():
    return decimal.Context(prec=100)


if __name__ == "__main__":
    unittest.main()
