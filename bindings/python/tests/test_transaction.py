"""Transactions and table changes with pyiceberg's names (t.transaction(),
update_schema(), update_spec(), update_sort_order(), manage_snapshots()),
on copies of real tables: Impala's v3 impala_test_default_part (i, j:
(1,-1) (2,-1) (3,5) (4,10) (5,NULL), partitioned by j, 3 snapshots) and
Spark's v1 impala_iceberg_partitioned (20 rows, hour(event_time) and
identity(action)). Every change is checked through a fresh open and
reads."""

import ctypes
import json
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import floe  # noqa: E402
from floe import FloeError, Status  # noqa: E402
from floe._lib import library  # noqa: E402

from fixtures import fixture  # noqa: E402

ROWS = [{"i": 1, "j": -1}, {"i": 2, "j": -1}, {"i": 3, "j": 5}, {"i": 4, "j": 10}, {"i": 5, "j": None}]


def by(key):
    return lambda r: (r[key] is None, r[key])


def metadata_files(location):
    return sorted(f for f in os.listdir(os.path.join(location, "metadata")) if f.endswith(".metadata.json"))


def data_files(location):
    out = set()
    for root, _, files in os.walk(os.path.join(location, "data")):
        out.update(os.path.join(root, f) for f in files)
    return out


class TransactionTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="floe-py-tx-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def copy(self, name):
        dst = os.path.join(self.dir, name.replace("/", "_"))
        shutil.copytree(fixture(name).location, dst)
        return dst

    def test_one_transaction_is_one_version_and_one_snapshot(self):
        loc = self.copy("impala_test_default_part")
        t = floe.Table.open(loc)
        versions, snapshots = metadata_files(loc), len(t.snapshots())
        with t.transaction() as tx:
            tx.set_properties(owner="etl")
            with tx.update_schema() as u:
                u.add_column("note", "string", doc="free text")
                u.add_column("k", "long", default_value=7)  # v3: old rows read 7
                u.rename_column("i", "id")
            # Written with the schema the transaction leaves: the new columns bind.
            tx.append([{"id": 9, "j": 3, "note": "x", "k": 1}], snapshot_properties={"run": "r1"})
        self.assertTrue(tx.result["committed"])
        self.assertEqual(len(tx.result["snapshot_ids"]), 1)
        self.assertEqual(tx.result["current_snapshot_id"], tx.result["snapshot_ids"][0])
        self.assertEqual(len(metadata_files(loc)), len(versions) + 1)

        again = floe.Table.open(loc)
        self.assertEqual(again.metadata_location, tx.result["metadata_location"])
        self.assertEqual(len(again.snapshots()), snapshots + 1)
        self.assertEqual(again.properties["owner"], "etl")
        self.assertEqual(again.current_snapshot().summary["run"], "r1")
        self.assertEqual([f.name for f in again.schema().fields], ["id", "j", "note", "k"])
        self.assertEqual(again.schema().find_field("note").doc, "free text")
        rows = sorted(again.scan().to_pylist(), key=by("id"))
        want = [dict(id=r["i"], j=r["j"], note=None, k=7) for r in ROWS] + [{"id": 9, "j": 3, "note": "x", "k": 1}]
        self.assertEqual(rows, want)

    def test_schema_changes_alone_with_pyiceberg_names(self):
        loc = self.copy("impala_test_default_part")
        t = floe.Table.open(loc)
        with t.update_schema() as u:
            u.update_column("i", field_type="long", doc="the row")
            u.add_column(("point",), {"type": "struct", "fields": [
                {"id": 0, "name": "x", "required": False, "type": "double"}]})
            u.move_first("j")
        t.update_schema().add_column("point.y", "double").move_after("point.y", "point.x").commit()
        again = floe.Table.open(loc)
        fields = again.schema().fields
        self.assertEqual([f.name for f in fields], ["j", "i", "point"])
        self.assertEqual(again.schema().find_field("i").field_type, "long")
        self.assertEqual([f.name for f in again.schema().find_field("point").field_type.fields], ["x", "y"])
        self.assertEqual(sorted(again.scan().to_pylist(), key=by("i")),
                         [dict(j=r["j"], i=r["i"], point=None) for r in ROWS])
        with again.update_schema() as u:
            u.delete_column("point")
        self.assertEqual(floe.Table.open(loc).schema().column_names(), ["j", "i"])

    def test_union_by_name_with_an_arrow_schema(self):
        """A scan's Arrow schema (__arrow_c_schema__, as a pyarrow Schema
        has) is merged by name: Spark's columns join Impala's table."""
        loc = self.copy("impala_test_default_part")
        t = floe.Table.open(loc)
        spark = fixture("impala_iceberg_partitioned").open()
        # action is required in Spark's table: old rows would have none.
        with self.assertRaises(FloeError) as cm:
            t.update_schema().union_by_name(spark.scan(selected_fields=["id", "action"])).commit()
        self.assertIn('"action"', str(cm.exception))
        with t.update_schema() as u:
            u.union_by_name(spark.scan(selected_fields=["id"]))
        again = floe.Table.open(loc)
        self.assertEqual(again.schema().column_names(), ["i", "j", "id"])
        self.assertEqual(again.schema().find_field("id").field_type, "int")
        self.assertEqual(sorted(again.scan().to_pylist(), key=by("i")), [dict(r, id=None) for r in ROWS])

    def test_refused_change_commits_nothing_and_names_the_column(self):
        loc = self.copy("impala_test_default_part")
        t = floe.Table.open(loc)
        before = t.metadata_location
        with self.assertRaises(FloeError) as cm:
            with t.update_schema() as u:
                u.update_column("i", field_type="string")
        self.assertEqual(cm.exception.code, Status.INVALID_ARGUMENT)
        self.assertIn('"i"', str(cm.exception))
        with self.assertRaises(FloeError) as cm:
            t.update_schema().delete_column("nope").commit()
        self.assertIn("nope", str(cm.exception))
        # j is the partition source: dropping it is refused.
        with self.assertRaises(FloeError):
            t.update_schema().delete_column("j").commit()
        self.assertEqual(floe.Table.open(loc).metadata_location, before)
        self.assertEqual(t.metadata_location, before)

    def test_required_columns(self):
        loc = self.copy("impala_test_default_part")
        t = floe.Table.open(loc)
        before = t.metadata_location
        # A required column without a default: old rows would have no value.
        with self.assertRaises(FloeError) as cm:
            t.update_schema().add_column("r", "int", required=True).commit()
        self.assertIn('"r"', str(cm.exception))
        # j holds a null (row 5): it cannot be required; nothing changes.
        with self.assertRaises(FloeError) as cm:
            t.update_schema().update_column("j", required=True).commit()
        self.assertIn("j", str(cm.exception))
        self.assertEqual(floe.Table.open(loc).metadata_location, before)
        t.update_schema(allow_incompatible_changes=True).add_column("r", "int", required=True).commit()
        t.update_schema().require_column("i").commit()
        schema = floe.Table.open(loc).schema()
        self.assertTrue(schema.find_field("r").required)
        self.assertTrue(schema.find_field("i").required)
        t.update_schema().make_column_optional("i").commit()
        self.assertFalse(floe.Table.open(loc).schema().find_field("i").required)

    def test_unknown_action_and_field_are_named(self):
        loc = self.copy("impala_test_default_part")
        t = floe.Table.open(loc)

        def call(actions):
            out = ctypes.c_void_p()
            rc = library().floe_table_transaction(t._handle, json.dumps(actions).encode(), None, ctypes.byref(out))
            return rc, library().floe_last_error().decode()

        rc, msg = call([{"action": "set-properties", "updates": {"a": "b"}}, {"action": "add-colum", "path": "x"}])
        self.assertEqual(rc, Status.INVALID_ARGUMENT)
        self.assertIn('action 1: unknown action "add-colum" (did you mean "add-column"?)', msg)
        rc, msg = call([{"action": "add-column", "path": "x", "type": "long", "positon": "first"}])
        self.assertEqual(rc, Status.INVALID_ARGUMENT)
        self.assertIn("action 0 (add-column)", msg)
        self.assertIn("positon", msg)
        rc, msg = call([{"action": "add-partition-field", "source": "i", "transform": "bucket"}])
        self.assertEqual(rc, Status.INVALID_ARGUMENT)
        self.assertIn('transform "bucket"', msg)
        self.assertNotIn("a", floe.Table.open(loc).properties)

    def test_failed_transactions_leave_no_file(self):
        loc = self.copy("impala_test_default_part")
        t = floe.Table.open(loc)
        files, before = data_files(loc), t.metadata_location
        # The block raises: nothing committed, the written files deleted.
        with self.assertRaises(RuntimeError):
            with t.transaction() as tx:
                tx.append(ROWS)
                self.assertGreater(len(data_files(loc)), len(files))
                raise RuntimeError("changed my mind")
        self.assertEqual(data_files(loc), files)
        # The commit is refused after the files were written: deleted too.
        with self.assertRaises(FloeError):
            with t.transaction() as tx:
                tx.append(ROWS)
                tx.update_schema().rename_column("missing", "m").commit()
        self.assertEqual(data_files(loc), files)
        self.assertEqual(floe.Table.open(loc).metadata_location, before)

    def test_token_commits_once(self):
        loc = self.copy("impala_test_default_part")
        t = floe.Table.open(loc)
        with t.transaction(token="job-7") as tx:
            tx.set_properties({"step": "7"})
            tx.append(ROWS)
        first = tx.result["snapshot_ids"]
        files = data_files(loc)
        with floe.Table.open(loc).transaction(token="job-7") as again:
            again.append(ROWS)
        self.assertTrue(again.result["token_found"])
        self.assertFalse(again.result["committed"])
        self.assertEqual(again.result["snapshot_ids"], first)
        self.assertEqual(data_files(loc), files)  # the retry's files are gone
        self.assertEqual(floe.Table.open(loc).scan().count(), 2 * len(ROWS))

    def test_two_schema_changes_from_one_base_conflict(self):
        loc = self.copy("impala_test_default_part")
        a, b = floe.Table.open(loc), floe.Table.open(loc)
        a.update_schema().add_column("from_a", "string").commit()
        with self.assertRaises(FloeError) as cm:
            b.update_schema().add_column("from_b", "string").commit()
        self.assertEqual(cm.exception.code, Status.CONFLICT)
        self.assertEqual(floe.Table.open(loc).schema().column_names(), ["i", "j", "from_a"])
        # Properties depend on nothing: b's retry lands on a's version.
        b.transaction().set_properties(x="1").commit_transaction()
        self.assertEqual(floe.Table.open(loc).properties["x"], "1")

    def test_partition_spec_on_a_v1_table(self):
        loc = self.copy("impala_iceberg_partitioned")
        t = floe.Table.open(loc)
        with t.update_spec() as u:
            u.remove_field("action")
            u.add_field("event_time", "day", "event_day")
            u.rename_field("event_time_hour", "hour_of_event")
        spec = floe.Table.open(loc).spec()
        got = [(f.name, str(f.transform)) for f in spec.fields]
        # v1 keeps a removed field, as void.
        self.assertEqual(got, [("hour_of_event", "hour"), ("action", "void"), ("event_day", "day")])
        self.assertEqual(floe.Table.open(loc).scan(row_filter="action = 'view'").count(),
                         fixture("impala_iceberg_partitioned").open().scan(row_filter="action = 'view'").count())
        self.assertEqual(floe.Table.open(loc).scan().count(), 20)

    def test_sort_order(self):
        loc = self.copy("impala_test_default_part")
        t = floe.Table.open(loc)
        with t.update_sort_order() as s:
            s.asc("i")
            s.desc("j", "identity", "nulls-first")
        order = floe.Table.open(loc).sort_order()
        got = [(f.source_id, f.direction, f.null_order) for f in order.fields]
        self.assertEqual(got, [(1, "asc", "nulls-last"), (2, "desc", "nulls-first")])

    def test_branches_tags_and_rollback(self):
        loc = self.copy("impala_test_default_part")
        t = floe.Table.open(loc)
        current = t.current_snapshot()
        parent = current.parent_snapshot_id
        with t.manage_snapshots() as ms:
            ms.create_branch(parent, "audit", max_snapshot_age_ms=3600000, min_snapshots_to_keep=2)
            ms.create_tag(current.snapshot_id, "v1")
            ms.rollback_to_snapshot(parent)
        again = floe.Table.open(loc)
        refs = again.metadata["refs"]
        self.assertEqual(refs["audit"], {"snapshot-id": parent, "type": "branch",
                                         "max-snapshot-age-ms": 3600000, "min-snapshots-to-keep": 2})
        self.assertEqual(refs["v1"]["type"], "tag")
        self.assertEqual(again.current_snapshot().snapshot_id, parent)
        self.assertEqual(again.scan(ref="v1").count(), len(ROWS))
        # main goes back to the tag, then the branch is renamed and the tag dropped.
        t.manage_snapshots().set_current_snapshot(ref_name="v1").rename_branch("audit", "qa").remove_tag("v1").commit()
        again = floe.Table.open(loc)
        self.assertEqual(again.current_snapshot().snapshot_id, current.snapshot_id)
        self.assertEqual(sorted(again.metadata["refs"]), ["main", "qa"])
        with self.assertRaises(FloeError) as cm:
            t.manage_snapshots().rollback_to_snapshot(123).commit()
        self.assertIn("123", str(cm.exception))
        # Back to the latest ancestor committed before the current one.
        t.manage_snapshots().rollback_to_timestamp(current.timestamp_ms).commit()
        self.assertEqual(floe.Table.open(loc).current_snapshot().snapshot_id, parent)
        with self.assertRaises(FloeError) as cm:
            t.manage_snapshots().rollback_to_timestamp(0).commit()
        self.assertEqual(cm.exception.code, Status.NOT_FOUND)

    def test_write_audit_publish_by_branch_and_by_cherry_pick(self):
        loc = self.copy("impala_test_default_part")
        t = floe.Table.open(loc)
        # Audit on a branch, then fast-forward main.
        t.manage_snapshots().create_branch(None, "audit").commit()
        t.append([{"i": 6, "j": 1}], branch="audit")
        self.assertEqual(floe.Table.open(loc).scan().count(), len(ROWS))
        t.manage_snapshots().fast_forward("main", "audit").commit()
        self.assertEqual(floe.Table.open(loc).scan().count(), len(ROWS) + 1)
        # Another change on a branch, carried to main by cherry-pick.
        t.manage_snapshots().create_branch(None, "side").commit()
        t.append([{"i": 7, "j": 1}], branch="side")
        t.append([{"i": 8, "j": 1}])  # main moved on: a pick, not a fast-forward
        side = t.snapshot_by_name("side").snapshot_id
        with t.transaction() as tx:
            tx.manage_snapshots().cherry_pick(side).commit()
        ids = sorted(r["i"] for r in floe.Table.open(loc).scan().to_pylist())
        self.assertEqual(ids, [1, 2, 3, 4, 5, 6, 7, 8])
        with self.assertRaises(FloeError):
            t.manage_snapshots().cherry_pick(side).commit()  # published once

    def test_upgrade_and_remove_properties(self):
        loc = self.copy("impala_iceberg_partitioned")
        t = floe.Table.open(loc)
        with t.transaction() as tx:
            tx.upgrade_table_version(2)
            tx.set_properties(a="1", b="2")
        with t.transaction() as tx:
            tx.remove_properties("a")
        again = floe.Table.open(loc)
        self.assertEqual(again.format_version, 2)
        self.assertNotIn("a", again.properties)
        self.assertEqual(again.properties["b"], "2")
        self.assertEqual(again.scan().count(), 20)

    def test_through_a_sqlite_catalog(self):
        cat = floe.load_catalog("py", uri="sqlite:" + os.path.join(self.dir, "catalog.db"),
                                warehouse=os.path.join(self.dir, "wh"))
        cat.create_namespace("db")
        t = cat.create_table("db.t", {"type": "struct", "fields": [
            {"id": 1, "name": "i", "required": False, "type": "int"},
            {"id": 2, "name": "j", "required": False, "type": "int"}]})
        t.append(ROWS)
        with t.transaction() as tx:
            tx.update_schema().add_column("s", "string").commit()
            tx.update_spec().add_identity("j").commit()
            tx.append([{"i": 6, "j": 1, "s": "new"}])
            tx.manage_snapshots().create_tag(None, "loaded").commit()
        loaded = floe.load_catalog("py", uri="sqlite:" + os.path.join(self.dir, "catalog.db")).load_table("db.t")
        self.assertEqual(loaded.metadata_location, tx.result["metadata_location"])
        self.assertEqual(loaded.schema().column_names(), ["i", "j", "s"])
        self.assertEqual([f.name for f in loaded.spec().fields], ["j"])
        self.assertEqual(loaded.snapshot_by_name("loaded").snapshot_id, tx.result["snapshot_ids"][0])
        rows = sorted(loaded.scan().to_pylist(), key=by("i"))
        self.assertEqual(rows, [dict(r, s=None) for r in ROWS] + [{"i": 6, "j": 1, "s": "new"}])

    def test_pyiceberg_style_arguments(self):
        """pyiceberg's type, transform and null-order objects are taken by
        their JSON form, str() and value, without pyiceberg installed."""

        class LongType:  # a pydantic model's JSON form, as pyiceberg's types have
            def model_dump_json(self, by_alias=False):
                return '"long"'

        class BucketTransform:
            def __init__(self, n):
                self.n = n

            def __str__(self):
                return f"bucket[{self.n}]"

        class NullOrder:
            value = "nulls-first"

        loc = self.copy("impala_test_default_part")
        t = floe.Table.open(loc)
        with t.transaction() as tx:
            with tx.update_schema() as u:
                u.add_column("big", LongType(), "a long", False)
            with tx.update_spec() as s:
                s.add_field("i", BucketTransform(8), "i_b")
            with tx.update_sort_order() as o:
                o.desc("i", BucketTransform(8), NullOrder())
        again = floe.Table.open(loc)
        self.assertEqual(again.schema().find_field("big").field_type, "long")
        self.assertEqual([(f.name, f.transform) for f in again.spec().fields], [("j", "identity"), ("i_b", "bucket[8]")])
        self.assertEqual([(f.transform, f.direction, f.null_order) for f in again.sort_order().fields],
                         [("bucket[8]", "desc", "nulls-first")])
        self.assertEqual(len(metadata_files(loc)), len(metadata_files(fixture("impala_test_default_part").location)) + 1)


if __name__ == "__main__":
    unittest.main()


class RowTransactionTest(unittest.TestCase):
    """tx.delete, tx.overwrite (pyiceberg's names) and tx.expire_snapshots
    inside one transaction with other changes."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="floe-py-tx-rows-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def copy(self, name):
        dst = os.path.join(self.dir, name)
        shutil.copytree(fixture(name).location, dst)
        return dst

    def test_delete_and_overwrite_with_a_schema_change(self):
        loc = self.copy("impala_test_default_part")
        t = floe.Table.open(loc)
        versions, snapshots = metadata_files(loc), len(t.snapshots())
        with t.transaction() as tx:
            with tx.update_schema() as u:
                u.add_column("note", "string")
            tx.delete("i = 2 or j = 10", snapshot_properties={"why": "cleanup"})
            # Written with the schema the transaction leaves (note binds).
            tx.overwrite([{"i": 30, "j": 5, "note": "fixed"}], overwrite_filter="j = 5")
        # A delete, then the overwrite's delete and its append.
        self.assertEqual(len(tx.result["snapshot_ids"]), 3)
        self.assertEqual(len(metadata_files(loc)), len(versions) + 1)
        again = floe.Table.open(loc)
        self.assertEqual(len(again.snapshots()), snapshots + 3)
        self.assertEqual(again.current_snapshot().snapshot_id, tx.result["snapshot_ids"][2])
        self.assertEqual(again.snapshot_by_id(tx.result["snapshot_ids"][0]).summary["why"], "cleanup")
        rows = sorted(again.scan().to_pylist(), key=by("i"))
        want = [{"i": 1, "j": -1, "note": None}, {"i": 5, "j": None, "note": None}, {"i": 30, "j": 5, "note": "fixed"}]
        self.assertEqual(rows, want)

    def test_overwrite_every_row_by_default(self):
        loc = self.copy("impala_test_default_part")
        t = floe.Table.open(loc)
        with t.transaction() as tx:
            tx.set_properties(owner="etl")
            tx.overwrite([{"i": 7, "j": 7}])
        again = floe.Table.open(loc)
        self.assertEqual(again.scan().to_pylist(), [{"i": 7, "j": 7}])
        self.assertEqual(again.properties["owner"], "etl")

    def test_a_refused_transaction_leaves_no_delete_file(self):
        # Hive's v2 table: files of several rows, so the delete writes files.
        loc = self.copy("impala_iceberg_v2_partitioned_position_deletes")
        t = floe.Table.open(loc)
        files, before, count = data_files(loc), t.metadata_location, t.scan().count()
        for mode in ("merge-on-read", "copy-on-write"):
            with self.assertRaises(FloeError) as e:
                with t.transaction() as tx:
                    tx.delete("id = 6", delete_mode=mode)
                    tx.update_schema().rename_column("missing", "m").commit()
            self.assertIn("missing", str(e.exception))
            self.assertEqual(data_files(loc), files)
        self.assertEqual(floe.Table.open(loc).metadata_location, before)
        # The same delete committed does write a file, and one version.
        versions = metadata_files(loc)
        with t.transaction() as tx:
            tx.delete("id = 6", delete_mode="merge-on-read")
            tx.set_properties(cleaned="yes")
        self.assertEqual(len(data_files(loc)), len(files) + 1)
        self.assertEqual(len(metadata_files(loc)), len(versions) + 1)
        self.assertEqual(floe.Table.open(loc).scan().count(), count - 1)

    def test_expire_snapshots_in_a_transaction(self):
        loc = self.copy("impala_test_default_part")
        t = floe.Table.open(loc)
        ids = [s.snapshot_id for s in t.snapshots()]
        versions = metadata_files(loc)
        with t.transaction() as tx:
            tx.set_properties(owner="etl")
            tx.expire_snapshots(older_than_ms=2**62, retain_last=1, keep_files=True)
        self.assertEqual(sorted(tx.result["expire"]["expired_snapshots"]), sorted(ids[:-1]))
        self.assertEqual(len(metadata_files(loc)), len(versions) + 1)
        again = floe.Table.open(loc)
        self.assertEqual([s.snapshot_id for s in again.snapshots()], [t.current_snapshot().snapshot_id])
        self.assertEqual(again.scan().count(), 5)

    def test_filter_arguments(self):
        t = floe.Table.open(self.copy("impala_test_default_part"))
        with self.assertRaises(ValueError):
            t.transaction().delete("i = 1", case_sensitive=False)
        with self.assertRaises(FloeError) as e:
            with t.transaction() as tx:
                tx.delete("i <")
        self.assertEqual(e.exception.code, Status.INVALID_ARGUMENT)
        with t.transaction() as tx:  # a REST JSON expression
            tx.delete({"type": "lt", "term": "i", "value": 3})
        self.assertEqual(sorted(r["i"] for r in t.scan().to_pylist()), [3, 4, 5])
