"""pyiceberg's names on Table, DataScan and Catalog, called as a pyiceberg
script calls them: append/overwrite/delete/dynamic_partition_overwrite/
add_files with their keyword names and defaults, name(), refs(),
last_sequence_number, snapshot_as_of_timestamp(), name_mapping(), and the
scan builders (select, filter, with_case_sensitive, use_ref, update,
snapshot, projection). Each test checks the rows and snapshots the call
leaves, on tables made here and on a copy of impala_test_default_part,
(i, j) = (1,-1) (2,-1) (3,5) (4,10) (5,NULL) per INDEX.md."""

import json
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import floe  # noqa: E402
from floe import FloeError, Status  # noqa: E402
from floe.expressions import (  # noqa: E402
    AlwaysTrue, And, EqualTo, GreaterThan, GreaterThanOrEqual, IsNaN, LessThan, NotNaN, Or,
)
from floe.schema import Schema  # noqa: E402
from floe.table.name_mapping import MappedField, NameMapping  # noqa: E402
from floe.table.refs import SnapshotRef, SnapshotRefType  # noqa: E402
from floe.types import DoubleType, IntegerType, ListType, MapType, NestedField, StringType, StructType  # noqa: E402

from fixtures import fixture  # noqa: E402

SCHEMA = Schema(
    NestedField(1, "i", IntegerType()),
    NestedField(2, "j", IntegerType()),
    NestedField(3, "s", StringType()),
)
ROWS = [{"i": 1, "j": -1, "s": "a"}, {"i": 2, "j": -1, "s": "b"}, {"i": 3, "j": 5, "s": "c"},
        {"i": 4, "j": 10, "s": "d"}, {"i": 5, "j": None, "s": None}]
FIXTURE_ROWS = [(1, -1), (2, -1), (3, 5), (4, 10), (5, None)]


def ids(t_or_scan):
    scan = t_or_scan.scan() if isinstance(t_or_scan, floe.Table) else t_or_scan
    return sorted(r["i"] for r in scan.to_pylist())


def pairs(t):
    return sorted((r["i"], r["j"]) for r in t.scan().to_pylist())


class Base(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="floe-py-names-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def table(self, rows=ROWS, **kwargs):
        t = floe.Table.create(os.path.join(self.dir, "t"), SCHEMA, **kwargs)
        if rows:
            t.append(rows)
        return t

    def copy(self, name):
        dst = os.path.join(self.dir, name)
        shutil.copytree(fixture(name).location, dst)
        return floe.Table.open(dst)


class WriteNamesTest(Base):
    def test_append_snapshot_properties_positional_and_floe_keywords(self):
        t = self.table(rows=None)
        sid = t.append(ROWS[:2], {"writer": "pyiceberg-script"})  # pyiceberg's second argument
        self.assertEqual(t.current_snapshot().snapshot_id, sid)
        self.assertEqual(t.current_snapshot().summary["writer"], "pyiceberg-script")
        t.append(ROWS[2:3], snapshot_properties={"step": "2"}, token="tok-2")
        self.assertEqual(t.current_snapshot().summary["step"], "2")
        self.assertEqual(t.append(ROWS[2:3], snapshot_properties={"step": "2"}, token="tok-2"), t.current_snapshot_id)
        t.append(ROWS[3:], properties={"step": "3"})  # floe's name still works
        self.assertEqual(t.current_snapshot().summary["step"], "3")
        self.assertEqual(ids(t), [1, 2, 3, 4, 5])
        with self.assertRaises(TypeError):
            t.append(ROWS, snapshot_properties={"a": "1"}, properties={"b": "2"})
        self.assertEqual(len(t.snapshots()), 3)

    def test_overwrite_defaults_to_the_whole_table(self):
        t = self.table()
        before = len(t.snapshots())
        t.overwrite([{"i": 100, "j": 1, "s": "new"}], snapshot_properties={"why": "reload"})
        self.assertEqual(ids(t), [100])
        self.assertEqual(len(t.snapshots()), before + 1)  # one "overwrite" snapshot, as Java's
        self.assertEqual(t.current_snapshot().summary.operation, "overwrite")
        self.assertEqual(t.current_snapshot().summary["why"], "reload")

    def test_overwrite_filter_and_row_filter(self):
        t = self.table()
        t.overwrite([{"i": 10, "j": -1, "s": "x"}], overwrite_filter=EqualTo("j", -1))
        self.assertEqual(ids(t), [3, 4, 5, 10])
        t.overwrite([{"i": 11, "j": 5, "s": "y"}], "j = 5")  # positional, as both spell it
        self.assertEqual(ids(t), [4, 5, 10, 11])
        t.overwrite([{"i": 12, "j": 10, "s": "z"}], row_filter=GreaterThanOrEqual("j", 10))  # floe's old keyword
        self.assertEqual(ids(t), [5, 10, 11, 12])
        with self.assertRaises(TypeError):
            t.overwrite([], overwrite_filter="i = 1", row_filter="i = 2")
        n = len(t.snapshots())
        with self.assertRaises(ValueError):  # text is bound in libfloe, by exact names
            t.overwrite([{"i": 1}], "I = 5", case_sensitive=False)
        with self.assertRaises(FloeError):
            t.overwrite([{"i": 1}], EqualTo("I", 5))
        self.assertEqual(len(t.snapshots()), n)
        t.overwrite([{"i": 13, "j": 0, "s": "w"}], Or(EqualTo("I", 5), EqualTo("S", "y")), case_sensitive=False)
        self.assertEqual(ids(t), [10, 12, 13])

    def test_delete(self):
        t = self.table()
        sid = t.delete(delete_filter=LessThan("i", 3), snapshot_properties={"why": "gdpr"})
        self.assertEqual(ids(t), [3, 4, 5])
        self.assertEqual(t.current_snapshot().snapshot_id, sid)
        self.assertEqual(t.current_snapshot().summary["why"], "gdpr")
        n = len(t.snapshots())
        self.assertEqual(t.delete("i > 100"), sid)  # nothing matched: nothing committed
        self.assertEqual(len(t.snapshots()), n)
        with self.assertRaises(ValueError):
            t.delete("I = 3", case_sensitive=False)
        t.delete(delete_filter={"type": "eq", "term": "I", "value": 3}, case_sensitive=False)
        self.assertEqual(ids(t), [4, 5])
        n += 1
        t.delete()  # pyiceberg's default: every row
        self.assertEqual(ids(t), [])
        self.assertEqual(len(t.snapshots()), n + 1)

    def test_transaction_delete_and_overwrite_without_case(self):
        t = self.table()
        with t.transaction() as tx:
            tx.delete(EqualTo("I", 1), case_sensitive=False)
        with t.transaction() as tx:
            tx.overwrite([{"i": 30, "j": 10, "s": "o"}], {"type": "eq", "term": "J", "value": 10}, case_sensitive=False)
        self.assertEqual(ids(t), [2, 3, 5, 30])
        with self.assertRaises(ValueError):
            t.transaction().delete("I = 2", case_sensitive=False)

    def test_dynamic_partition_overwrite(self):
        t = self.table(partition_by=["j"])
        sid = t.dynamic_partition_overwrite([{"i": 20, "j": -1, "s": "p"}, {"i": 21, "j": 5, "s": "q"}],
                                            snapshot_properties={"run": "7"})
        # The partitions j=-1 and j=5 are replaced; j=10 and j=null keep their rows.
        self.assertEqual(ids(t), [4, 5, 20, 21])
        snap = t.current_snapshot()
        self.assertEqual(snap.snapshot_id, sid)
        self.assertEqual(snap.summary.operation, "overwrite")
        self.assertEqual(snap.summary["run"], "7")

    def test_transaction_dynamic_partition_overwrite(self):
        t = self.table(partition_by=["j"])
        n = len(t.snapshots())
        with t.transaction() as tx:
            tx.set_properties(step="dpo")
            tx.dynamic_partition_overwrite([{"i": 20, "j": 10, "s": "p"}], snapshot_properties={"run": "8"})
            tx.append([{"i": 21, "j": 7, "s": "q"}])
        self.assertEqual(ids(t), [1, 2, 3, 5, 20, 21])
        self.assertEqual(len(t.snapshots()), n + 2)
        self.assertEqual(t.snapshots()[-2].summary["run"], "8")
        self.assertEqual(t.properties["step"], "dpo")

    def test_add_files_keywords(self):
        src = fixture("impala_test_default_part").open()
        paths = sorted({p for task in src.scan().plan_tasks() for p in task.file_paths})
        # The fixture's schema (j's initial default -1 fills the files written before j).
        schema = next(s for s in src.metadata["schemas"] if s["schema-id"] == src.metadata["current-schema-id"])
        t = floe.Table.create(os.path.join(self.dir, "added"), schema, format_version=3)
        with self.assertRaises(ValueError):
            t.add_files([paths[0], paths[0]])
        self.assertIsNone(t.current_snapshot())
        t.add_files(paths, {"source": "impala"}, check_duplicate_files=True)
        self.assertEqual(pairs(t), FIXTURE_ROWS)
        self.assertEqual(t.current_snapshot().summary["source"], "impala")
        with self.assertRaises(FloeError) as cm:
            t.add_files(paths[:1], check_duplicate_files=False)  # floe refuses a duplicate always
        self.assertEqual(cm.exception.code, Status.CONFLICT)
        self.assertEqual(pairs(t), FIXTURE_ROWS)

    def test_on_a_fixture_copy(self):
        t = self.copy("impala_test_default_part")
        n = len(t.snapshots())
        t.delete(delete_filter=EqualTo("i", 2))
        self.assertEqual(pairs(t), [p for p in FIXTURE_ROWS if p[0] != 2])
        t.overwrite([{"i": 40, "j": 10}], overwrite_filter=EqualTo("j", 10))
        self.assertEqual(pairs(t), [(1, -1), (3, 5), (5, None), (40, 10)])
        t.append([{"i": 6, "j": 5}], {"step": "last"})
        self.assertEqual(t.current_snapshot().summary["step"], "last")
        self.assertEqual(len(t.snapshots()), n + 3)
        # The fixture's own first state is still there to travel to.
        first = t.snapshots()[0]
        self.assertIs(t.snapshot_as_of_timestamp(first.timestamp_ms - 1), None)
        self.assertEqual(t.snapshot_as_of_timestamp(first.timestamp_ms), first)
        scan = t.scan().use_ref("main").filter(GreaterThan("i", 3))
        self.assertEqual(ids(scan), [5, 6, 40])


class TableNamesTest(Base):
    def test_name(self):
        cat = floe.load_catalog("names", uri="sqlite:" + os.path.join(self.dir, "c.db"),
                                warehouse=os.path.join(self.dir, "wh"))
        cat.create_namespace("db")
        t = cat.create_table("db.events", SCHEMA)
        self.assertEqual(t.name(), ("db", "events"))
        self.assertEqual(cat.load_table(("db", "events")).name(), ("db", "events"))
        self.assertEqual(cat.rename_table("db.events", "db.renamed").name(), ("db", "renamed"))
        opened = floe.Table.open(t.location())
        self.assertEqual(opened.name(), ("static-table", opened.metadata_location))

    def test_refs(self):
        t = self.table()
        first = t.current_snapshot_id
        t.append(ROWS[:1])
        with t.manage_snapshots() as ms:
            ms.create_tag(first, "v1", max_ref_age_ms=86400000)
            ms.create_branch(first, "audit", max_ref_age_ms=1000, max_snapshot_age_ms=2000, min_snapshots_to_keep=3)
        refs = t.refs()
        self.assertEqual(set(refs), {"main", "v1", "audit"})
        self.assertEqual(refs["main"], SnapshotRef(t.current_snapshot_id, SnapshotRefType.BRANCH))
        self.assertEqual(refs["v1"].snapshot_id, first)
        self.assertEqual(refs["v1"].snapshot_ref_type, SnapshotRefType.TAG)
        self.assertEqual(refs["v1"].snapshot_ref_type, "tag")
        self.assertEqual(refs["v1"].max_ref_age_ms, 86400000)
        self.assertIsNone(refs["v1"].min_snapshots_to_keep)
        audit = refs["audit"]
        self.assertEqual((audit.snapshot_ref_type, audit.min_snapshots_to_keep, audit.max_snapshot_age_ms,
                          audit.max_ref_age_ms), (SnapshotRefType.BRANCH, 3, 2000, 1000))
        self.assertEqual(self.table_without_refs_refs(t), {"main": refs["main"]})

    def table_without_refs_refs(self, t):
        # Format v1 metadata may carry no "refs": main is the current snapshot.
        view = floe.Table.__new__(floe.Table)
        view._metadata = {k: v for k, v in t.metadata.items() if k != "refs"}
        return floe._table_info.TableInfo.refs(view)

    def test_last_sequence_number(self):
        t = self.table(rows=None)
        self.assertEqual(t.last_sequence_number, 0)
        t.append(ROWS[:1])
        t.append(ROWS[1:2])
        self.assertEqual(t.last_sequence_number, 2)
        self.assertEqual(t.last_sequence_number, t.current_snapshot().sequence_number)

    def test_snapshot_as_of_timestamp(self):
        t = self.table(rows=None)
        for k in range(3):
            t.append(ROWS[k:k + 1])
        log = t.history()
        self.assertEqual(len(log), 3)
        first, last = log[0], log[-1]
        self.assertIsNone(t.snapshot_as_of_timestamp(first.timestamp_ms - 1))
        self.assertEqual(t.snapshot_as_of_timestamp(first.timestamp_ms).snapshot_id, first.snapshot_id)
        self.assertEqual(t.snapshot_as_of_timestamp(last.timestamp_ms + 10 ** 6).snapshot_id, last.snapshot_id)
        # inclusive=False: the entry committed at exactly that time is not yet current.
        older = t.snapshot_as_of_timestamp(last.timestamp_ms, inclusive=False)
        want = [e.snapshot_id for e in log if e.timestamp_ms < last.timestamp_ms]
        self.assertEqual(older.snapshot_id if older else None, want[-1] if want else None)
        # The rows it names are the rows of that time.
        self.assertEqual(ids(t.scan(snapshot_id=t.snapshot_as_of_timestamp(first.timestamp_ms).snapshot_id)), [1])

    def test_name_mapping(self):
        t = self.table()
        self.assertIsNone(t.name_mapping())
        mapping = [{"field-id": 1, "names": ["i", "id"]},
                   {"field-id": 4, "names": ["loc"], "fields": [{"field-id": 5, "names": ["lat"]}]}]
        with t.transaction() as tx:
            tx.set_properties({"schema.name-mapping.default": json.dumps(mapping)})
        m = t.name_mapping()
        self.assertIsInstance(m, NameMapping)
        self.assertEqual(len(m), 2)
        self.assertEqual(m.find("id").field_id, 1)
        self.assertEqual(m.find("loc", "lat"), MappedField(field_id=5, names=["lat"]))
        self.assertEqual(m.model_dump(), mapping)
        with self.assertRaises(ValueError):
            m.find("loc", "lon")

    def test_schema_name_mapping(self):
        schema = Schema(
            NestedField(1, "id", IntegerType()),
            NestedField(2, "tags", ListType(3, StringType())),
            NestedField(4, "attrs", MapType(5, StringType(), 6, StructType(NestedField(7, "v", DoubleType())))),
        )
        m = schema.name_mapping
        self.assertEqual(m.model_dump(), [
            {"field-id": 1, "names": ["id"]},
            {"field-id": 2, "names": ["tags"], "fields": [{"field-id": 3, "names": ["element"]}]},
            {"field-id": 4, "names": ["attrs"], "fields": [
                {"field-id": 5, "names": ["key"]},
                {"field-id": 6, "names": ["value"], "fields": [{"field-id": 7, "names": ["v"]}]}]},
        ])
        self.assertEqual(m.find("attrs", "value", "v").field_id, 7)
        # Set as the table's property, name_mapping() reads it back.
        t = floe.Table.create(os.path.join(self.dir, "mapped"), schema)
        with t.transaction() as tx:
            tx.set_properties({"schema.name-mapping.default": t.schema().name_mapping.model_dump_json()})
        self.assertEqual(t.name_mapping(), m)


class ScanBuilderTest(Base):
    def test_select(self):
        t = self.table()
        scan = t.scan()
        narrow = scan.select("i", "s")
        self.assertEqual([f.name for f in narrow.schema.children], ["i", "s"])
        self.assertEqual(sorted(narrow.to_pylist(), key=lambda r: r["i"])[0], {"i": 1, "s": "a"})
        # Selecting from a selection keeps those of its columns named again.
        self.assertEqual([f.name for f in narrow.select("s", "j").schema.children], ["s"])
        self.assertEqual([f.name for f in scan.schema.children], ["i", "j", "s"])  # unchanged
        self.assertEqual([f.name for f in scan.select("*").schema.children], ["i", "j", "s"])

    def test_filter_ands_every_form(self):
        t = self.table()
        text = t.scan(row_filter="i > 1")
        self.assertEqual(ids(text.filter("i < 5")), [2, 3, 4])
        expr = t.scan(row_filter=GreaterThan("i", 1))
        self.assertEqual(ids(expr.filter(LessThan("i", 5)).filter(EqualTo("j", -1))), [2])
        # Text and an expression: the expression is added as add_filter adds it.
        mixed = text.filter(LessThan("i", 4))
        self.assertEqual(ids(mixed), [2, 3])
        self.assertEqual(mixed.count(), 2)
        self.assertEqual(ids(mixed.select("i")), [2, 3])  # carried to scans made from it
        self.assertEqual(ids(text), [2, 3, 4, 5])  # the original is unchanged
        self.assertEqual(ids(t.scan().filter(AlwaysTrue())), [1, 2, 3, 4, 5])

    def test_add_filter_is_carried(self):
        t = self.table()
        scan = t.scan()
        scan.add_filter("j = -1")
        self.assertEqual(ids(scan.select("i")), [1, 2])
        self.assertEqual(ids(scan.filter("i = 2")), [2])

    def test_with_case_sensitive(self):
        t = self.table()
        with self.assertRaises(FloeError):
            t.scan(row_filter=EqualTo("I", 3)).count()
        loose = t.scan().with_case_sensitive(False)
        self.assertEqual(ids(loose.filter(EqualTo("I", 3))), [3])
        self.assertEqual([f.name for f in loose.select("S").schema.children], ["s"])
        with self.assertRaises(FloeError):
            loose.with_case_sensitive(True).filter(EqualTo("I", 3))

    def test_use_ref_and_snapshot(self):
        t = self.table(rows=ROWS[:2])
        first = t.current_snapshot()
        t.append(ROWS[2:])
        with t.manage_snapshots() as ms:
            ms.create_tag(first.snapshot_id, "v1")
        scan = t.scan()
        self.assertEqual(scan.snapshot().snapshot_id, t.current_snapshot_id)
        old = scan.use_ref("v1")
        self.assertEqual(ids(old), [1, 2])
        self.assertEqual(old.snapshot(), first)
        self.assertEqual(ids(scan.use_ref("main")), [1, 2, 3, 4, 5])
        with self.assertRaisesRegex(ValueError, "unknown ref=nope"):
            scan.use_ref("nope")
        with self.assertRaisesRegex(ValueError, "Cannot override ref"):
            old.use_ref("main")
        self.assertEqual(t.scan(snapshot_id=first.snapshot_id).snapshot(), first)
        self.assertEqual(t.scan(ref="v1").snapshot(), first)
        self.assertEqual(t.scan(as_of_timestamp=first.timestamp_ms).snapshot().snapshot_id, first.snapshot_id)
        self.assertIsNone(floe.Table.create(os.path.join(self.dir, "empty"), SCHEMA).scan().snapshot())

    def test_a_new_scan_reads_the_snapshot_its_source_read(self):
        t = self.table(rows=ROWS[:2])
        scan = t.scan()
        t.append(ROWS[2:])  # through the same handle, after the scan opened
        self.assertEqual(ids(scan.select("i")), [1, 2])  # as pyiceberg's copy reads
        self.assertEqual(ids(t.scan().select("i")), [1, 2, 3, 4, 5])

    def test_update(self):
        t = self.table()
        scan = t.scan(row_filter="i > 3", limit=10)
        self.assertEqual(ids(scan.update(row_filter="i < 3")), [1, 2])
        self.assertEqual(ids(scan.update(limit=1, selected_fields=("i",))), [4])
        self.assertEqual(ids(scan.update(row_filter=None)), [1, 2, 3, 4, 5])

    def test_projection(self):
        schema = Schema(
            NestedField(1, "id", IntegerType(), required=True),
            NestedField(2, "loc", StructType(NestedField(3, "lat", DoubleType()), NestedField(4, "lon", DoubleType()))),
            NestedField(5, "name", StringType()),
            identifier_field_ids=[1],
        )
        t = floe.Table.create(os.path.join(self.dir, "nested"), schema)
        t.append([{"id": 1, "loc": {"lat": 1.5, "lon": 2.5}, "name": "a"}])
        self.assertEqual(t.scan().projection(), t.schema())
        p = t.scan().select("id", "loc.lat").projection()
        self.assertEqual(p, Schema(NestedField(1, "id", IntegerType(), required=True),
                                   NestedField(2, "loc", StructType(NestedField(3, "lat", DoubleType()))),
                                   identifier_field_ids=[1]))
        self.assertEqual(t.scan(selected_fields=("loc.lat",)).to_pylist(), [{"loc": {"lat": 1.5}}])
        # The schema of the snapshot read: a column added later is not in it.
        first = t.current_snapshot_id
        with t.update_schema() as u:
            u.add_column("extra", StringType())
        self.assertEqual(t.scan(snapshot_id=first).projection().column_names, schema.column_names)
        self.assertIn("extra", t.scan().projection().column_names)
        self.assertEqual(t.scan().with_case_sensitive(False).select("NAME").projection().column_names, ["name"])


class CreateTableTransactionTest(Base):
    def catalog(self):
        cat = floe.load_catalog("staged", uri="sqlite:" + os.path.join(self.dir, "c.db"),
                                warehouse="file://" + os.path.join(self.dir, "wh"))
        cat.create_namespace_if_not_exists("db")
        return cat

    def test_the_table_appears_at_commit_with_its_changes(self):
        cat = self.catalog()
        with cat.create_table_transaction("db.events", SCHEMA, properties={"a": "1"}) as tx:
            tx.set_properties(owner="etl")
            with tx.update_schema() as u:
                u.add_column("note", StringType())
            tx.append(ROWS[:3])
            self.assertFalse(cat.table_exists("db.events"))
            self.assertEqual(cat.list_tables("db"), [])
        t = cat.load_table("db.events")
        self.assertEqual(t.name(), ("db", "events"))
        self.assertEqual((t.properties["a"], t.properties["owner"]), ("1", "etl"))
        self.assertIn("note", t.schema().column_names)
        self.assertEqual(ids(t), [1, 2, 3])
        self.assertEqual(len(t.snapshots()), 1)
        self.assertTrue(t.location().endswith(os.path.join("wh", "db", "events")))
        t.append(ROWS[3:])  # an ordinary catalog table from here on
        self.assertEqual(ids(cat.load_table("db.events")), [1, 2, 3, 4, 5])

    def test_commit_transaction_returns_the_table(self):
        cat = self.catalog()
        tx = cat.create_table_transaction(("db", "empty"), SCHEMA, location=os.path.join(self.dir, "elsewhere"))
        t = tx.commit_transaction()
        self.assertEqual(t.name(), ("db", "empty"))
        self.assertEqual(t.location(), os.path.join(self.dir, "elsewhere"))
        self.assertIsNone(t.current_snapshot())
        self.assertTrue(cat.table_exists("db.empty"))

    def test_an_abandoned_transaction_leaves_nothing(self):
        cat = self.catalog()
        with self.assertRaises(RuntimeError):
            with cat.create_table_transaction("db.events", SCHEMA) as tx:
                tx.append(ROWS)
                raise RuntimeError("changed my mind")
        self.assertFalse(cat.table_exists("db.events"))
        self.assertFalse(os.path.exists(os.path.join(self.dir, "wh", "db", "events")))
        self.assertEqual(ids(cat.create_table("db.events", SCHEMA)), [])  # the place is free again

    def test_conflicts(self):
        cat = self.catalog()
        tx = cat.create_table_transaction("db.events", SCHEMA)
        tx.append(ROWS)
        other = cat.create_table("db.events", SCHEMA, location=os.path.join(self.dir, "other"))
        other.append(ROWS[:1])
        with self.assertRaises(FloeError) as cm:
            tx.commit_transaction()
        self.assertEqual(cm.exception.code, Status.CONFLICT)
        self.assertEqual(ids(cat.load_table("db.events")), [1])  # the other table, untouched
        self.assertFalse(os.path.exists(os.path.join(self.dir, "wh", "db", "events")))
        with self.assertRaises(FloeError) as cm:
            cat.create_table_transaction("db.events", SCHEMA)
        self.assertEqual(cm.exception.code, Status.CONFLICT)

    def test_unsupported_catalogs(self):
        wh = floe.load_catalog("fs", type="warehouse", uri=os.path.join(self.dir, "fs"))
        with self.assertRaises(FloeError) as cm:
            wh.create_table_transaction("db.t", SCHEMA)
        self.assertEqual(cm.exception.code, Status.UNSUPPORTED)
        cat = self.catalog()
        with self.assertRaises(FloeError) as cm:
            cat.create_table_transaction("db.t", SCHEMA, location="s3://bucket/t")
        self.assertEqual(cm.exception.code, Status.UNSUPPORTED)
        self.assertFalse(cat.table_exists("db.t"))


class NaNOnOtherColumnsTest(Base):
    def test_is_nan_on_an_int_column(self):
        # pyiceberg (and Java) bind IsNaN of a column that cannot hold NaN
        # to AlwaysFalse, NotNaN to AlwaysTrue: nulls included.
        t = self.table()
        self.assertEqual(ids(t.scan(row_filter=IsNaN("j"))), [])
        self.assertEqual(ids(t.scan(row_filter=NotNaN("j"))), [1, 2, 3, 4, 5])
        self.assertEqual(ids(t.scan(row_filter=And(NotNaN("s"), EqualTo("i", 2)))), [2])
        t.delete(IsNaN("i"))
        self.assertEqual(ids(t), [1, 2, 3, 4, 5])


if __name__ == "__main__":
    unittest.main()
