"""floe.dask on a real distributed.LocalCluster with 2 worker processes:
reading a fixture table and a generated multi-file table (rows equal a
local scan), writing one (read back by floe; a resubmitted job with the
same token commits nothing). Skipped without dask.distributed (Debian's
python3-distributed; make test runs these with Debian's python3)."""

import logging
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import floe  # noqa: E402

from fixtures import fixture  # noqa: E402

try:
    import dask  # noqa: F401
    import dask.dataframe as dd
    import distributed
    import pandas as pd
    import floe.dask as fdask
except ImportError:  # pragma: no cover
    if os.environ.get("FLOE_REQUIRE_DASK"):
        raise  # .ci/run installs it: a missing Dask is a failure there
    distributed = None

SCHEMA = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "id", "required": False, "type": "long"},
    {"id": 2, "name": "kind", "required": False, "type": "string"},
    {"id": 3, "name": "x", "required": False, "type": "double"},
]}


@unittest.skipIf(distributed is None, "dask.distributed is not installed")
class DaskTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # Worker processes are spawned (distributed's default), never
        # forked from this process, which has loaded libfloe.
        cls.cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                               host="127.0.0.1", dashboard_address=None,
                                               silence_logs=logging.CRITICAL)
        cls.client = distributed.Client(cls.cluster)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.close()

    def test_read_fixture_equals_local_scan(self):
        f = fixture("impala_iceberg_partitioned")
        ddf = fdask.read_table(f.location, columns=["id", "action"], row_filter="id > 4",
                               location_map=f.location_map, split_size=1)
        self.assertGreater(ddf.npartitions, 1)
        got = ddf.compute().sort_values("id").reset_index(drop=True)
        with f.open() as t:
            want = sorted(t.scan(selected_fields=["id", "action"], row_filter="id > 4").to_pylist(), key=lambda r: r["id"])
        self.assertEqual(got.to_dict("records"), want)
        self.assertEqual(len(got), 16)

    def test_generated_table_round_trip_and_token(self):
        with tempfile.TemporaryDirectory() as d:
            loc = os.path.join(d, "t")
            floe.Table.create(loc, SCHEMA, partition_by=["kind"]).close()
            rows = [{"id": i, "kind": "abc"[i % 3], "x": i / 4 if i % 7 else None} for i in range(3000)]
            ddf = dd.from_pandas(pd.DataFrame(rows), npartitions=4)
            sid = fdask.write_table(ddf, loc, token="job-1")
            with floe.Table.open(loc) as t:
                self.assertEqual(t.current_snapshot_id, sid)
                self.assertEqual(len(t.snapshots()), 1)
                files = t.scan().plan_files()
                self.assertGreaterEqual(len(files), 4)  # every worker wrote files, per partition value
                local = sorted(t.scan().to_pylist(), key=lambda r: r["id"])
            self.assertEqual(local, rows)
            # Read back through dask, one partition per file.
            back = fdask.read_table(loc, split_size=1).compute().sort_values("id").reset_index(drop=True)
            self.assertEqual(len(back), 3000)
            self.assertEqual(back["id"].tolist(), list(range(3000)))
            self.assertEqual(back["x"].isna().sum(), sum(1 for r in rows if r["x"] is None))
            # The same job again: nothing written, nothing committed.
            again = fdask.write_table(ddf, loc, token="job-1")
            self.assertEqual(again, sid)
            with floe.Table.open(loc) as t:
                self.assertEqual(len(t.snapshots()), 1)
            data_files = [os.path.join(r, n) for r, _, ns in os.walk(os.path.join(loc, "data")) for n in ns]
            self.assertEqual(len(data_files), len(files))


if __name__ == "__main__":
    unittest.main()
