"""Property: a write from Python either reads back exactly equal, by name,
to what was given, or is refused with nothing committed and no file left.

Random inputs, as lists of dicts and as pandas frames (pyarrow hidden),
with columns shuffled, left out, renamed (a near miss of a real name),
extra, and type-promoted (ints into a double, numpy int8/int32 into an int
or long, float32 into a double), at the top level and inside structs
(dicts of dicts) and lists. An input that names a key the table lacks, at
any depth, must be refused; every other input must read back as given,
left-out values null. FLOE_PROPERTY_SEED repeats a run; FLOE_PROPERTY_RUNS
sets how many writes each form makes."""

import os
import random
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
    {"id": 1, "name": "id", "required": True, "type": "long"},
    {"id": 2, "name": "n", "required": False, "type": "int"},
    {"id": 3, "name": "score", "required": False, "type": "double"},
    {"id": 4, "name": "name", "required": False, "type": "string"},
    {"id": 5, "name": "p", "required": False, "type": {"type": "struct", "fields": [
        {"id": 6, "name": "x", "required": False, "type": "long"},
        {"id": 7, "name": "label", "required": False, "type": "string"},
    ]}},
    {"id": 8, "name": "tags", "required": False,
     "type": {"type": "list", "element-id": 9, "element": "string", "element-required": False}},
    {"id": 10, "name": "pts", "required": False,
     "type": {"type": "list", "element-id": 11, "element-required": False, "element": {"type": "struct", "fields": [
         {"id": 12, "name": "x", "required": False, "type": "long"},
         {"id": 13, "name": "y", "required": False, "type": "double"},
     ]}}},
]}
TOP = ["n", "score", "name", "p", "tags", "pts"]
NEAR = {"n": "nn", "score": "scroe", "name": "nmae", "p": "P", "tags": "tag", "pts": "pts_",
        "x": "X", "label": "lable", "y": "yy"}
RUNS = int(os.environ.get("FLOE_PROPERTY_RUNS", "30"))


def files_under(root):
    return sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs)


class Case:
    """One random input: rows as given (with extras and renames) and the
    rows floe must read back when the input is acceptable."""

    def __init__(self, rng, base, pandas_form):
        self.rng, self.pandas_form = rng, pandas_form
        self.unknown = []  # names the table lacks, at any depth
        n_rows = rng.randint(1, 5)
        top = [c for c in TOP if rng.random() < 0.7]
        rng.shuffle(top)
        self.rename = rng.choice(top) if top and rng.random() < 0.15 else None
        self.extra = rng.random() < 0.15
        self.given, self.want = [], []
        for i in range(n_rows):
            given, want = {"id": base + i}, {c: None for c in ["id"] + TOP}
            want["id"] = base + i
            for c in top:
                g, w = self.value(c)
                key = NEAR[c] if c == self.rename else c
                given[key] = g
                if key == c:
                    want[c] = w
            if self.extra:
                given["extra_col"] = rng.choice([1, "x", None])
            order = list(given)
            rng.shuffle(order)
            self.given.append({k: given[k] for k in order})
            self.want.append(want)
        if self.rename:
            self.unknown.append(NEAR[self.rename])
        if self.extra:
            self.unknown.append("extra_col")

    def value(self, column):
        """(value given, value read back) for one column."""
        rng = self.rng
        if rng.random() < 0.15:
            return None, None
        if column == "n":
            v = rng.randint(-2 ** 31, 2 ** 31 - 1)
            return v, v
        if column == "score":
            if rng.random() < 0.3:
                v = rng.randint(-1000, 1000)  # an int into a double
                return v, float(v)
            v = rng.randint(-4000, 4000) / 4  # exact in float32 too
            return v, v
        if column == "name":
            v = "".join(rng.choice("ab\u00e9\u4e2d ") for _ in range(rng.randint(0, 6)))
            return v, v
        if column == "p":
            return self.struct({"x": lambda: rng.randint(-10 ** 12, 10 ** 12),
                                "label": lambda: rng.choice(["", "l", "\u00fc"])})
        if column == "tags":
            vs = [rng.choice(["t", "", None]) for _ in range(rng.randint(0, 3))]
            return vs, list(vs)
        if column == "pts":
            given, want = [], []
            for _ in range(rng.randint(0, 3)):
                g, w = self.struct({"x": lambda: rng.randint(-5, 5), "y": lambda: rng.randint(-8, 8) / 2})
                given.append(g)
                want.append(w)
            return given, want
        raise AssertionError(column)

    def struct(self, fields):
        """A dict with fields left out, renamed or extra, in any order."""
        rng = self.rng
        given, want = {}, {k: None for k in fields}
        for k, make in fields.items():
            if rng.random() < 0.2:
                continue  # left out: null
            v = make()
            if rng.random() < 0.05:
                given[NEAR[k]] = v
                self.unknown.append(NEAR[k])
            else:
                given[k] = v
                want[k] = v
        if rng.random() < 0.05:
            given["zz"] = 1
            self.unknown.append("zz")
        keys = list(given)
        rng.shuffle(keys)
        return {k: given[k] for k in keys}, want

    def data(self):
        if not self.pandas_form:
            return self.given
        # Every row has the same top-level keys (a frame has columns);
        # numeric columns get numpy dtypes, some of them narrower than the
        # table's (promotions).
        names = list(self.given[0])
        cols = {}
        for name in names:
            values = [r[name] for r in self.given]
            if name in ("id", "n") and all(v is not None for v in values):
                dtype = self.rng.choice([np.int64, np.int32] if name == "id" else [np.int64, np.int32])
                if name == "n" or all(-2 ** 31 <= v < 2 ** 31 for v in values):
                    cols[name] = np.array(values, dtype=dtype)
                    continue
            if name == "score" and all(v is not None for v in values):
                cols[name] = np.array(values, dtype=self.rng.choice([np.float64, np.float32]))
                continue
            cols[name] = pd.Series(values, dtype=object)
        return pd.DataFrame(cols, columns=names)


@unittest.skipIf(pd is None, "pandas or numpy is not installed")
class WritePropertyTest(unittest.TestCase):
    def run_form(self, pandas_form):
        seed = int(os.environ.get("FLOE_PROPERTY_SEED", random.SystemRandom().randrange(2 ** 32)))
        rng = random.Random(seed)
        with tempfile.TemporaryDirectory() as d, floe.Table.create(os.path.join(d, "t"), SCHEMA) as t, \
                mock.patch.dict(sys.modules, {"pyarrow": None}):
            root = os.path.join(d, "t")
            for run in range(RUNS):
                case = Case(rng, base=run * 100, pandas_form=pandas_form)
                with self.subTest(seed=seed, run=run, given=case.given):
                    before_files = files_under(root)
                    before_snapshot = t.refresh().current_snapshot_id
                    try:
                        t.append(case.data())
                        refused = None
                    except (FloeError, ValueError, TypeError) as e:
                        refused = e
                    if case.unknown:
                        self.assertIsNotNone(refused, f"keys the table lacks were accepted: {case.unknown} "
                                                      f"(FLOE_PROPERTY_SEED={seed})")
                    else:
                        self.assertIsNone(refused, f"FLOE_PROPERTY_SEED={seed}")
                    if refused is not None:
                        self.assertEqual(t.refresh().current_snapshot_id, before_snapshot)
                        self.assertEqual(files_under(root), before_files, "a refused write left a file behind")
                        continue
                    got = t.refresh().scan(row_filter=f"id >= {run * 100} and id < {run * 100 + 100}").to_pylist()
                    self.assertEqual(sorted(got, key=lambda r: r["id"]), case.want,
                                     f"FLOE_PROPERTY_SEED={seed}")

    def test_lists_of_dicts(self):
        self.run_form(pandas_form=False)

    def test_pandas_frames(self):
        self.run_form(pandas_form=True)


if __name__ == "__main__":
    unittest.main()
