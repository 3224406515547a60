"""A host that runs for hours: one process opens, scans (plain, filtered,
with deletes, parallel) and commits FLOE_SOAK_OPS times (10,000 by
default) against local tables and tables on S3 (versitygw), sampling its
RSS, open file descriptors and what libfloe holds (floe.runtime_stats)
every FLOE_SOAK_EVERY operations. After the warm-up (the first fifth),
every measure must stay flat: the test asserts bounds, and prints the
samples."""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import floe  # noqa: E402

from fixtures import fixture  # noqa: E402
from test_s3 import BUCKET, S3Server  # noqa: E402

OPS = int(os.environ.get("FLOE_SOAK_OPS", "10000"))
EVERY = int(os.environ.get("FLOE_SOAK_EVERY", str(max(OPS // 20, 1))))

SCHEMA = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "id", "required": False, "type": "long"},
    {"id": 2, "name": "kind", "required": False, "type": "string"},
]}

# After warm-up: RSS may grow by this much (allocator noise, Python's own
# caches), file descriptors and goroutines by these counts, and no handle
# or exported batch may be left between operations.
RSS_SLACK = 48 << 20
FD_SLACK = 4
GOROUTINE_SLACK = 8


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def open_fds():
    return len(os.listdir("/proc/self/fd"))


def rows_read(scan):
    """Reads every batch through the C stream (no pyarrow), counting rows."""
    return sum(batch.length for _, batch in scan._batches())


class SoakTest(S3Server, unittest.TestCase):
    def test_many_operations_in_one_process(self):
        partitioned = fixture("impala_iceberg_partitioned")
        deletes = fixture("impala_iceberg_v2_partitioned_position_deletes")
        lineitem = fixture("duckdb_lineitem_iceberg")
        _, s3_location, s3_map = self.put_fixture("impala_iceberg_v2_partitioned_position_deletes")
        work = tempfile.mkdtemp(prefix="floe-soak-")
        local_table = os.path.join(work, "events")
        s3_table = f"s3://{BUCKET}/soak/events"
        floe.Table.create(local_table, SCHEMA).close()
        floe.Table.create(s3_table, SCHEMA, s3=self.s3).close()
        commits = {"local": 0, "s3": 0}

        def commit(where):
            loc, opts = (local_table, {}) if where == "local" else (s3_table, {"s3": self.s3})
            with floe.Table.open(loc, **opts) as t:
                n = commits[where]
                t.append([{"id": n, "kind": where}], token=f"{where}-{n}")
                commits[where] = n + 1
                if n % 50 == 49:  # keep the metadata small, as a real job does
                    t.expire_snapshots(older_than_ms=2**62, retain_last=5)

        def op(i):
            kind = i % 8
            if kind == 0:
                with partitioned.open() as t:
                    assert rows_read(t.scan()) == 20
            elif kind == 1:
                with partitioned.open() as t:
                    assert len(t.scan(row_filter="id > 10", selected_fields=["id"]).to_pylist()) == 10
            elif kind == 2:
                with deletes.open() as t:
                    assert rows_read(t.scan()) == 10
            elif kind == 3:
                with lineitem.open() as t:
                    assert rows_read(t.scan(selected_fields=["l_orderkey", "l_quantity"], threads=2)) == 51793
            elif kind == 4:
                commit("local")
            elif kind == 5:
                with floe.Table.open(s3_location, location_map=s3_map, s3=self.s3) as t:
                    assert rows_read(t.scan(threads=2)) == 10
            elif kind == 6:
                commit("s3")
            else:
                with partitioned.open() as t:
                    scan = t.scan(threads=2, batch_size=1)
                    batches = scan._batches()
                    next(batches)
                    scan.cancel()  # a read stopped part way, as hosts do
                    try:
                        for _ in batches:
                            pass
                    except floe.FloeError as e:
                        assert e.code == floe.Status.CANCELLED, e

        samples = []
        for i in range(OPS):
            op(i)
            if (i + 1) % EVERY == 0:
                stats = floe.runtime_stats()
                samples.append((i + 1, rss_bytes(), open_fds(), stats))
        print(f"\nsoak: {OPS} operations ({commits['local']} local and {commits['s3']} S3 commits)")
        print(f"{'ops':>7} {'RSS MiB':>8} {'fds':>4} {'goroutines':>10} {'handles':>7} {'batches':>7} "
              f"{'Go heap MiB':>11} {'export MiB':>10}")
        for n, rss, fds, st in samples:
            print(f"{n:>7} {rss / 2**20:>8.1f} {fds:>4} {st['goroutines']:>10} {st['handles']:>7} {st['batches']:>7} "
                  f"{st['heap_alloc_bytes'] / 2**20:>11.1f} {st['export_bytes'] / 2**20:>10.1f}")

        warm = samples[len(samples) // 5]
        for n, rss, fds, st in samples[len(samples) // 5:]:
            self.assertLessEqual(rss, warm[1] + RSS_SLACK, f"RSS grew after warm-up (at {n} ops)")
            self.assertLessEqual(fds, warm[2] + FD_SLACK, f"file descriptors grew (at {n} ops)")
            self.assertLessEqual(st["goroutines"], warm[3]["goroutines"] + GOROUTINE_SLACK, f"goroutines grew (at {n} ops)")
            self.assertEqual(st["handles"], 0, f"handles left between operations (at {n} ops)")
            self.assertEqual(st["batches"], 0, f"exported batches left between operations (at {n} ops)")
        with floe.Table.open(local_table) as t:
            self.assertEqual(sorted(r["id"] for r in t.scan().to_pylist()), list(range(commits["local"])))
        with floe.Table.open(s3_table, s3=self.s3) as t:
            self.assertEqual(sorted(r["id"] for r in t.scan().to_pylist()), list(range(commits["s3"])))


if __name__ == "__main__":
    unittest.main()
