"""Times Scan.to_pandas() without pyarrow against floe's own Arrow scan of
the same rows, on a lineitem-like table with TPC-H lineitem's 16 columns
and their types (longs, decimal(15, 2), strings, dates), written by floe
from a pandas frame (Table.append).

    FLOE_LIBRARY=build/libfloe.so python3 benchmarks/python/to_pandas_bench.py [--rows N] [--threads N] [--check]

(make bench-python runs it with Debian's python3 and writes
benchmarks/results/latest-pandas.txt.)

The Arrow scan is the same scan's batches consumed as floe hands them over
(Arrow C Data Interface, nothing converted); to_pandas is every column
made a pandas column. Each measurement is the best of --repeat runs,
the two alternated, after one warm-up scan (the files then in the page
cache for both). "one batch" asks floe for batches as large as the table
(scan(batch_size=...)): numeric columns are then views of floe's buffers,
no copy at all; with the default 64 Ki-row batches each column is joined
once (np.concatenate). Goals (issue
31): all 16 columns within 3x of the Arrow scan, the four long columns
within 1.2x.
"""

import argparse
import decimal
import os
import sys
import tempfile
import time

sys.modules["pyarrow"] = None  # the numpy path, as on Debian's python3
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bindings", "python"))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import floe  # noqa: E402

COLUMNS = [
    ("l_orderkey", "long"), ("l_partkey", "long"), ("l_suppkey", "long"), ("l_linenumber", "long"),
    ("l_quantity", "decimal(15, 2)"), ("l_extendedprice", "decimal(15, 2)"), ("l_discount", "decimal(15, 2)"),
    ("l_tax", "decimal(15, 2)"), ("l_returnflag", "string"), ("l_linestatus", "string"), ("l_shipdate", "date"),
    ("l_commitdate", "date"), ("l_receiptdate", "date"), ("l_shipinstruct", "string"), ("l_shipmode", "string"),
    ("l_comment", "string"),
]
NUMERIC = ["l_orderkey", "l_partkey", "l_suppkey", "l_linenumber"]
SCHEMA = {"type": "struct", "fields": [
    {"id": i + 1, "name": name, "required": False, "type": t} for i, (name, t) in enumerate(COLUMNS)]}

WORDS = ("furiously regular accounts sleep carefully final deposits ironic packages haggle quickly bold "
         "requests cajole blithely express pinto beans detect slyly even theodolites nag").split()


def lineitem_frame(rows, seed=31):
    """A frame of rows lineitem-like rows (TPC-H's value ranges and
    cardinalities: flags and modes from a few values, comments mostly
    distinct)."""
    rng = np.random.default_rng(seed)
    orderkey = np.sort(rng.integers(1, rows // 4 + 2, rows))
    cents = lambda values: pd.Series(values).map(lambda c: decimal.Decimal(int(c)).scaleb(-2))  # noqa: E731
    quantity = rng.integers(1, 51, rows)
    price = quantity * rng.integers(90_000, 210_000, rows)  # cents
    ship = np.datetime64("1992-01-02") + rng.integers(0, 2526, rows).astype("timedelta64[D]")
    words = np.array(WORDS, dtype=object)
    comment_words = words[rng.integers(0, len(WORDS), (rows, 5))]
    comments = [" ".join(w) for w in comment_words.tolist()]
    return pd.DataFrame({
        "l_orderkey": orderkey,
        "l_partkey": rng.integers(1, 200_001, rows),
        "l_suppkey": rng.integers(1, 10_001, rows),
        "l_linenumber": rng.integers(1, 8, rows),
        "l_quantity": cents(quantity * 100),
        "l_extendedprice": cents(price),
        "l_discount": cents(rng.integers(0, 11, rows)),
        "l_tax": cents(rng.integers(0, 9, rows)),
        "l_returnflag": np.array(["A", "N", "R"], dtype=object)[rng.integers(0, 3, rows)],
        "l_linestatus": np.array(["F", "O"], dtype=object)[rng.integers(0, 2, rows)],
        "l_shipdate": pd.Series(ship).dt.date,
        "l_commitdate": pd.Series(ship + rng.integers(-60, 60, rows).astype("timedelta64[D]")).dt.date,
        "l_receiptdate": pd.Series(ship + rng.integers(1, 31, rows).astype("timedelta64[D]")).dt.date,
        "l_shipinstruct": np.array(["DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"],
                                   dtype=object)[rng.integers(0, 4, rows)],
        "l_shipmode": np.array(["REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"],
                               dtype=object)[rng.integers(0, 7, rows)],
        "l_comment": comments,
    })


def best(repeat, fn):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def arrow_scan(table):
    """floe's Arrow scan: every batch taken from the stream, nothing converted."""
    return sum(batch.length for _, batch in table.scan()._batches())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--check", action="store_true", help="exit 1 when a ratio is over its goal")
    parser.add_argument("--threads", type=int, default=None, help="floe's scan threads (default: every core)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        table = floe.Table.create(os.path.join(tmp, "lineitem"), SCHEMA)
        table.append(lineitem_frame(args.rows))
        table = table.refresh()
        print(f"table: {args.rows:,} rows, 16 columns, written in {time.perf_counter() - start:.1f} s")
        assert arrow_scan(table) == args.rows  # warm-up
        runs = [
            ("all 16 columns", None, {}, {}, 3.0),
            ("4 long columns", NUMERIC, {}, {}, 1.2),
            ("4 long, one batch", NUMERIC, {"batch_size": 1 << 24}, {}, None),
            ("16, decimal_as_float", None, {}, {"decimal_as_float": True}, None),
            ("16, date_as_object=False", None, {}, {"date_as_object": False}, None),
        ]
        failed = False
        print(f"{'columns':28s} {'arrow scan':>11s} {'to_pandas':>11s} {'ratio':>7s} {'goal':>6s}")
        for label, fields, scan_options, options, goal in runs:
            scan = table.scan(selected_fields=fields, threads=args.threads, **scan_options)
            # Alternated, best of each: a shared machine's load hits both alike.
            arrow, frames = float("inf"), float("inf")
            for _ in range(args.repeat):
                arrow = min(arrow, best(1, lambda: sum(b.length for _, b in scan._batches())))
                frames = min(frames, best(1, lambda: scan.to_pandas(**options)))
            ratio = frames / arrow
            ok = goal is None or ratio <= goal
            failed |= not ok
            print(f"{label:28s} {arrow * 1000:9.0f}ms {frames * 1000:9.0f}ms {ratio:6.2f}x "
                  f"{'' if goal is None else f'{goal:.1f}x':>5s}{'' if ok else '  OVER'}")
        foreign(args.repeat, args.threads)
        floor = object_floor(table, args.repeat)
        arrow = min(best(1, lambda: arrow_scan(table)) for _ in range(args.repeat))
        print(f"Objects alone (1 Decimal per l_extendedprice, 1 str per l_comment, to_pandas' C loops, no scan): "
              f"{floor * 1000:.0f}ms = {floor / arrow:.2f}x the 16-column Arrow scan ({arrow * 1000:.0f}ms)")
        table.close()
    return 1 if failed and args.check else 0


def foreign(repeat, threads):
    """The same two reads of DuckDB's lineitem fixture (51,793 rows, the
    16 columns, decimals as DuckDB writes them): files another engine
    wrote, and the table the issue timed to_pandas on (1.9 s then)."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bindings", "python",
                                    "tests"))
    from fixtures import fixture

    table = fixture("duckdb_lineitem_iceberg").open()
    scan = table.scan(threads=threads)
    arrow = min(best(1, lambda: sum(b.length for _, b in scan._batches())) for _ in range(repeat))
    frames = min(best(1, lambda: scan.to_pandas()) for _ in range(repeat))
    print(f"{'DuckDB lineitem, 51,793 rows':28s} {arrow * 1000:9.1f}ms {frames * 1000:9.1f}ms {frames / arrow:6.2f}x")
    table.close()


def object_floor(table, repeat):
    """The least time the objects that must exist take to make: one
    decimal.Decimal for each l_extendedprice (mostly distinct: nothing to
    share) and one str for each l_comment, by the C loops to_pandas uses
    (libfloe's floe_py_int64_products and floe_py_binary_objects), from
    values already in memory as one array each; to_pandas makes these
    and everything else."""
    from floe import _frame_objects

    rows = table.scan(selected_fields=["l_extendedprice", "l_comment"]).to_pylist()
    cents = np.array([int(r["l_extendedprice"].scaleb(2)) for r in rows], np.int64)
    text = [r["l_comment"].encode() for r in rows]
    data = np.frombuffer(b"".join(text), np.uint8)
    offsets = np.zeros(len(text) + 1, np.int64)
    np.cumsum([len(t) for t in text], out=offsets[1:])

    def make():
        prices = _frame_objects._scaled(cents, 2)
        comments = _frame_objects.binary_objects(offsets[:-1], offsets[1:], data, True)
        return prices, comments

    return min(best(1, make) for _ in range(repeat))


if __name__ == "__main__":
    sys.exit(main())
