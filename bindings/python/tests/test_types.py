"""floe.types, floe.schema, floe.partitioning, floe.transforms and
floe.table.sorting: built as pyiceberg builds them, printing what
pyiceberg prints (the expected strings are pyiceberg's, from its docs and
its own tests), and round-tripping through real tables: created with
them, read back equal from Table.schema()/spec()/sort_order(), and taken
by the evolution API."""

import copy
import os
import pickle
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # fixtures, run from anywhere

import floe  # noqa: E402
from floe import FloeError, Status  # noqa: E402
from floe.partitioning import UNPARTITIONED_PARTITION_SPEC, PartitionField, PartitionSpec  # noqa: E402
from floe.schema import Schema  # noqa: E402
from floe.table.sorting import UNSORTED_SORT_ORDER, NullOrder, SortDirection, SortField, SortOrder  # noqa: E402
from floe.transforms import (BucketTransform, DayTransform, HourTransform, IdentityTransform,  # noqa: E402
                             MonthTransform, TruncateTransform, UnknownTransform, VoidTransform, YearTransform,
                             parse_transform)
from floe.types import (BinaryType, BooleanType, DateType, DecimalType, DoubleType, FixedType,  # noqa: E402
                        FloatType, GeographyType, GeometryType, IntegerType, ListType, LongType, MapType,
                        NestedField, StringType, StructType, TimestampNanoType, TimestampType,
                        TimestamptzNanoType, TimestamptzType, TimeType, UnknownType, UUIDType, VariantType)


class PrimitiveTypeTest(unittest.TestCase):
    # (type, str, repr) as pyiceberg's tests/test_types.py has them.
    CASES = [
        (BooleanType(), "boolean", "BooleanType()"),
        (IntegerType(), "int", "IntegerType()"),
        (LongType(), "long", "LongType()"),
        (FloatType(), "float", "FloatType()"),
        (DoubleType(), "double", "DoubleType()"),
        (DateType(), "date", "DateType()"),
        (TimeType(), "time", "TimeType()"),
        (TimestampType(), "timestamp", "TimestampType()"),
        (TimestamptzType(), "timestamptz", "TimestamptzType()"),
        (TimestampNanoType(), "timestamp_ns", "TimestampNanoType()"),
        (TimestamptzNanoType(), "timestamptz_ns", "TimestamptzNanoType()"),
        (StringType(), "string", "StringType()"),
        (UUIDType(), "uuid", "UUIDType()"),
        (BinaryType(), "binary", "BinaryType()"),
        (UnknownType(), "unknown", "UnknownType()"),
        (VariantType(), "variant", "VariantType()"),
        (FixedType(22), "fixed[22]", "FixedType(length=22)"),
        (DecimalType(19, 25), "decimal(19, 25)", "DecimalType(precision=19, scale=25)"),
        (GeometryType(), "geometry", "GeometryType()"),
        (GeometryType("EPSG:4326"), "geometry('EPSG:4326')", "GeometryType(crs='EPSG:4326')"),
        (GeographyType(), "geography", "GeographyType()"),
        (GeographyType("EPSG:4326", "planar"), "geography('EPSG:4326', 'planar')",
         "GeographyType(crs='EPSG:4326', algorithm='planar')"),
    ]

    def test_str_repr_and_eval(self):
        ns = dict(vars(floe.types))
        for t, s, r in self.CASES:
            with self.subTest(r):
                self.assertEqual(str(t), s)
                self.assertEqual(repr(t), r)
                self.assertEqual(f"{t}", s)
                self.assertEqual(eval(repr(t), ns), t)
                self.assertTrue(t.is_primitive)
                self.assertFalse(t.is_struct)

    def test_singletons_equality_and_copies(self):
        self.assertIs(BooleanType(), BooleanType())
        self.assertIs(FixedType(22), FixedType(22))
        self.assertIsNot(FixedType(19), FixedType(25))
        self.assertEqual(DecimalType(8, 3), DecimalType(8, 3))
        self.assertNotEqual(DecimalType(8, 3), DecimalType(8, 4))
        self.assertNotEqual(LongType(), IntegerType())
        self.assertNotEqual(FixedType(16), UUIDType())
        self.assertEqual(len(FixedType(8)), 8)
        for t, _, _ in self.CASES:
            self.assertIs(copy.deepcopy(t), t)
            self.assertIs(pickle.loads(pickle.dumps(t)), t)

    def test_types_are_their_spec_names(self):
        # floe's field types were strings: they still compare so.
        self.assertEqual(LongType(), "long")
        self.assertEqual(DecimalType(9, 2), "decimal(9, 2)")
        self.assertEqual({"long": 1}[LongType()], 1)
        # geometry prints pyiceberg's quoted form but is the spec's string.
        self.assertEqual(GeometryType("EPSG:4326").model_dump(), "geometry(EPSG:4326)")

    def test_parse(self):
        for t, s, _ in self.CASES:
            self.assertIs(floe.types.parse_type(t.model_dump()), t)
        self.assertEqual(floe.types.parse_type("decimal(9,2)"), DecimalType(9, 2))
        self.assertEqual(floe.types.parse_type("geometry('EPSG:4326')"), GeometryType("EPSG:4326"))
        self.assertEqual(floe.types.parse_type("geography(OGC:CRS84, karney)"),
                         GeographyType("OGC:CRS84", "karney"))
        with self.assertRaisesRegex(ValueError, "Unsupported field type: 'bool'"):
            floe.types.parse_type("bool")
        with self.assertRaises(ValueError):
            DecimalType(39, 2)


class NestedTypeTest(unittest.TestCase):
    def test_nested_field(self):
        # pyiceberg's NestedField docstring and tests.
        self.assertEqual(str(NestedField(field_id=1, name="foo", field_type=FixedType(22), required=False)),
                         "1: foo: optional fixed[22]")
        self.assertEqual(str(NestedField(field_id=3, name="baz", field_type="string", required=True,
                                         doc="A string field")),
                         "3: baz: required string (A string field)")
        self.assertEqual(repr(NestedField(1, "required_field", StringType(), True)),
                         "NestedField(field_id=1, name='required_field', field_type=StringType(), required=True)")
        self.assertEqual(repr(NestedField(1, "required_field", StringType(), required=False, initial_default="hello",
                                          write_default="bye")),
                         "NestedField(field_id=1, name='required_field', field_type=StringType(), required=False, "
                         "initial_default='hello', write_default='bye')")
        self.assertEqual(NestedField(1, "required_field", StringType(), True, "this is a doc").model_dump_json(),
                         '{"id":1,"name":"required_field","type":"string","required":true,"doc":"this is a doc"}')
        self.assertEqual(NestedField(id=1, name="required_field", type="string", required=True, doc="this is a doc"),
                         NestedField(1, "required_field", StringType(), True, "this is a doc"))
        self.assertNotEqual(NestedField(1, "a", StringType()), NestedField(1, "a", StringType(), True))
        self.assertTrue(NestedField(1, "a", StringType()).optional)
        with self.assertRaises(AttributeError):
            NestedField(1, "a", StringType()).name = "b"

    def test_unknown_arguments(self):
        # A misspelt keyword is an error; an Iceberg JSON key floe does not
        # know (a newer writer's) is ignored, as pyiceberg ignores it.
        with self.assertRaisesRegex(TypeError, "requird"):
            NestedField(1, "a", LongType(), requird=True)
        self.assertEqual(NestedField(**{"id": 1, "name": "a", "type": "long", "some-new-key": 1}),
                         NestedField(1, "a", LongType()))
        with self.assertRaisesRegex(TypeError, "specid"):
            PartitionSpec(specid=1)

    def test_struct_list_map(self):
        struct = StructType(NestedField(1, "required_field", StringType(), True, "this is a doc"),
                            NestedField(2, "optional_field", IntegerType()))
        self.assertEqual(str(struct),
                         "struct<1: required_field: required string (this is a doc), 2: optional_field: optional int>")
        self.assertEqual(repr(StructType(NestedField(1, "required_field", StringType(), True),
                                         NestedField(2, "optional_field", IntegerType()))),
                         "StructType(fields=(NestedField(field_id=1, name='required_field', field_type=StringType(), "
                         "required=True), NestedField(field_id=2, name='optional_field', field_type=IntegerType(), "
                         "required=False),))")
        self.assertEqual(struct.model_dump_json(),
                         '{"type":"struct","fields":['
                         '{"id":1,"name":"required_field","type":"string","required":true,"doc":"this is a doc"},'
                         '{"id":2,"name":"optional_field","type":"int","required":false}]}')
        self.assertEqual(StructType.model_validate_json(struct.model_dump_json()), struct)
        self.assertTrue(struct.is_struct)
        self.assertEqual(struct.field_by_name("OPTIONAL_FIELD", case_sensitive=False).field_id, 2)

        lst = ListType(element_id=22, element=StringType(), element_required=True)
        self.assertEqual(str(lst), "list<string>")
        self.assertEqual(repr(lst), "ListType(type='list', element_id=22, element_type=StringType(), "
                                    "element_required=True)")
        self.assertEqual(lst.model_dump_json(),
                         '{"type":"list","element-id":22,"element":"string","element-required":true}')
        self.assertEqual(ListType.model_validate_json(lst.model_dump_json()), lst)

        mp = MapType(key_id=19, key_type=StringType(), value_id=25, value_type=DoubleType(), value_required=False)
        self.assertEqual(str(mp), "map<string, double>")
        self.assertEqual(repr(mp), "MapType(type='map', key_id=19, key_type=StringType(), value_id=25, "
                                   "value_type=DoubleType(), value_required=False)")
        self.assertEqual(mp.model_dump_json(),
                         '{"type":"map","key-id":19,"key":"string","value-id":25,"value":"double",'
                         '"value-required":false}')
        self.assertEqual(MapType.model_validate_json(mp.model_dump_json()), mp)
        self.assertNotEqual(mp, MapType(19, StringType(), 25, DoubleType(), True))


def simple_schema():
    # pyiceberg's conftest table_schema_simple.
    return Schema(NestedField(1, "foo", StringType(), required=False),
                  NestedField(2, "bar", IntegerType(), required=True),
                  NestedField(3, "baz", BooleanType(), required=False),
                  schema_id=1, identifier_field_ids=[2])


class SchemaTest(unittest.TestCase):
    def test_str_repr_json(self):
        self.assertEqual(str(simple_schema()),
                         "table {\n  1: foo: optional string\n  2: bar: required int\n  3: baz: optional boolean\n}")
        self.assertEqual(repr(Schema(NestedField(field_id=1, name="foo", field_type=StringType()), schema_id=1)),
                         "Schema(NestedField(field_id=1, name='foo', field_type=StringType(), required=False), "
                         "schema_id=1, identifier_field_ids=[])")
        self.assertEqual(simple_schema().model_dump_json(),
                         '{"type":"struct","fields":[{"id":1,"name":"foo","type":"string","required":false},'
                         '{"id":2,"name":"bar","type":"int","required":true},'
                         '{"id":3,"name":"baz","type":"boolean","required":false}],'
                         '"schema-id":1,"identifier-field-ids":[2]}')
        self.assertEqual(Schema.model_validate_json(simple_schema().model_dump_json()), simple_schema())

    def test_equality_ignores_the_schema_id(self):
        a = simple_schema()
        b = Schema(*a.fields, schema_id=7, identifier_field_ids=[2])
        self.assertEqual(a, b)
        self.assertNotEqual(a, Schema(*a.fields, identifier_field_ids=[]))
        self.assertNotEqual(a, Schema(*a.fields[:2], identifier_field_ids=[2]))

    def test_lookups(self):
        s = Schema(NestedField(1, "id", LongType(), True),
                   NestedField(2, "point", StructType(NestedField(3, "x", DoubleType()),
                                                      NestedField(4, "y", DoubleType()))),
                   NestedField(5, "tags", ListType(6, StringType())),
                   NestedField(7, "props", MapType(8, StringType(), 9, LongType())))
        # pyiceberg's order: a parent after its children.
        self.assertEqual(s.column_names, ["id", "point.x", "point.y", "point", "tags.element", "tags",
                                          "props.key", "props.value", "props"])
        self.assertEqual(s.column_names(), s.column_names)  # floe's method spelling
        self.assertEqual(s.find_field("point.y").field_id, 4)
        self.assertEqual(s.find_field("POINT.Y", case_sensitive=False).field_id, 4)
        self.assertEqual(s.find_field(9).name, "value")
        self.assertEqual(s.find_type("tags.element"), StringType())
        self.assertEqual(s.find_column_name(8), "props.key")
        self.assertEqual(s.highest_field_id, 9)
        self.assertEqual(s.as_struct(), StructType(*s.fields))
        self.assertEqual(s.select("point.x").column_names, ["point.x", "point.y", "point"])
        with self.assertRaisesRegex(ValueError, "Could not find field with name nope, case_sensitive=True"):
            s.find_field("nope")
        with self.assertRaisesRegex(ValueError, "Could not find field with id: 99"):
            s.find_field(99)


class TransformTest(unittest.TestCase):
    def test_str_repr_parse(self):
        cases = [(IdentityTransform(), "identity", "IdentityTransform()"),
                 (BucketTransform(100), "bucket[100]", "BucketTransform(num_buckets=100)"),
                 (TruncateTransform(19), "truncate[19]", "TruncateTransform(width=19)"),
                 (YearTransform(), "year", "YearTransform()"), (MonthTransform(), "month", "MonthTransform()"),
                 (DayTransform(), "day", "DayTransform()"), (HourTransform(), "hour", "HourTransform()"),
                 (VoidTransform(), "void", "VoidTransform()")]
        ns = dict(vars(floe.transforms))
        for t, s, r in cases:
            with self.subTest(r):
                self.assertEqual(str(t), s)
                self.assertEqual(repr(t), r)
                self.assertEqual(parse_transform(s), t)
                self.assertIs(type(parse_transform(s)), type(t))
                self.assertEqual(eval(r, ns), t)
                self.assertEqual(pickle.loads(pickle.dumps(t)), t)
        self.assertNotEqual(BucketTransform(4), BucketTransform(8))
        self.assertEqual(BucketTransform(4).num_buckets, 4)
        self.assertEqual(TruncateTransform(3).width, 3)
        self.assertEqual(repr(parse_transform("zorder")), "UnknownTransform(transform='zorder')")
        self.assertIsInstance(parse_transform("zorder"), UnknownTransform)
        self.assertTrue(DayTransform().can_transform(TimestampType()))
        self.assertFalse(DayTransform().can_transform(StringType()))
        self.assertFalse(HourTransform().can_transform(DateType()))
        with self.assertRaises(ValueError):
            BucketTransform(0)


class PartitionSortTest(unittest.TestCase):
    def test_partition(self):
        f = PartitionField(3, 1000, BucketTransform(100), "id")
        self.assertEqual(str(f), "1000: id: bucket[100](3)")
        self.assertEqual(repr(f), "PartitionField(source_id=3, field_id=1000, transform=BucketTransform(num_buckets=100), "
                                  "name='id')")
        spec = PartitionSpec(f)
        self.assertEqual(str(spec), f"[\n  {f}\n]")
        self.assertEqual(repr(PartitionSpec()), "PartitionSpec(spec_id=0)")
        self.assertEqual(str(UNPARTITIONED_PARTITION_SPEC), "[]")
        self.assertTrue(UNPARTITIONED_PARTITION_SPEC.is_unpartitioned())
        self.assertNotEqual(spec, PartitionSpec(PartitionField(3, 1002, BucketTransform(100), "id")))
        partitioned = PartitionSpec(PartitionField(1, 1000, TruncateTransform(19), "str_truncate"),
                                    PartitionField(2, 1001, BucketTransform(25), "int_bucket"), spec_id=3)
        self.assertEqual(partitioned.model_dump_json(),
                         '{"spec-id":3,"fields":['
                         '{"source-id":1,"field-id":1000,"transform":"truncate[19]","name":"str_truncate"},'
                         '{"source-id":2,"field-id":1001,"transform":"bucket[25]","name":"int_bucket"}]}')
        self.assertEqual(PartitionSpec.model_validate_json(partitioned.model_dump_json()), partitioned)
        self.assertEqual(PartitionField(**{"source-ids": [1], "field-id": 1000, "transform": "truncate[19]",
                                           "name": "str_truncate"}),
                         PartitionField(source_id=1, field_id=1000, transform=TruncateTransform(width=19),
                                        name="str_truncate"))
        self.assertEqual(PartitionField(source_id=1, field_id=1000, transform="day", name="d").transform,
                         DayTransform())
        self.assertEqual(partitioned.last_assigned_field_id, 1001)

    def test_sort(self):
        order = SortOrder(SortField(19, IdentityTransform(), null_order=NullOrder.NULLS_FIRST),
                          SortField(25, BucketTransform(4), direction=SortDirection.DESC),
                          SortField(22, VoidTransform(), direction=SortDirection.ASC), order_id=22)
        self.assertEqual(str(order), "[\n  19 ASC NULLS FIRST\n  bucket[4](25) DESC NULLS LAST\n"
                                     "  void(22) ASC NULLS FIRST\n]")
        self.assertEqual(repr(order),
                         "SortOrder(SortField(source_id=19, transform=IdentityTransform(), "
                         "direction=SortDirection.ASC, null_order=NullOrder.NULLS_FIRST), "
                         "SortField(source_id=25, transform=BucketTransform(num_buckets=4), "
                         "direction=SortDirection.DESC, null_order=NullOrder.NULLS_LAST), "
                         "SortField(source_id=22, transform=VoidTransform(), "
                         "direction=SortDirection.ASC, null_order=NullOrder.NULLS_FIRST), order_id=22)")
        ns = dict(vars(floe.transforms), **vars(floe.table.sorting))
        self.assertEqual(eval(repr(order), ns), order)
        self.assertEqual(repr(UNSORTED_SORT_ORDER), "SortOrder(order_id=0)")
        self.assertEqual(SortOrder(SortField(source_id=19)).model_dump_json(),
                         '{"order-id":1,"fields":[{"source-id":19,"transform":"identity","direction":"asc",'
                         '"null-order":"nulls-first"}]}')
        self.assertEqual(UNSORTED_SORT_ORDER.model_dump_json(), '{"order-id":0,"fields":[]}')
        self.assertEqual(SortOrder.model_validate_json(order.model_dump_json()), order)
        self.assertEqual(SortField(**{"source-ids": [19], "transform": "identity", "direction": "asc",
                                      "null-order": "nulls-first"}), SortField(19))
        # pyiceberg's property and floe's method both answer.
        self.assertTrue(UNSORTED_SORT_ORDER.is_unsorted)
        self.assertTrue(UNSORTED_SORT_ORDER.is_unsorted())
        self.assertFalse(order.is_unsorted)
        self.assertEqual(SortDirection.DESC, "desc")
        self.assertEqual(str(NullOrder.NULLS_LAST), "NULLS LAST")
        with self.assertRaises(ValueError):
            SortField(1, direction="sideways")


def nested_schema():
    return Schema(
        NestedField(1, "id", LongType(), required=True),
        NestedField(2, "name", StringType(), doc="who"),
        NestedField(3, "ts", TimestamptzType()),
        NestedField(4, "amount", DecimalType(12, 2)),
        NestedField(5, "point", StructType(NestedField(6, "x", DoubleType(), True), NestedField(7, "y", FloatType()))),
        NestedField(8, "tags", ListType(9, StringType(), element_required=False)),
        NestedField(10, "props", MapType(11, StringType(), 12, IntegerType(), value_required=False)),
        NestedField(13, "day", DateType()), NestedField(14, "t", TimeType()), NestedField(15, "u", UUIDType()),
        NestedField(16, "f", FixedType(4)), NestedField(17, "b", BinaryType()), NestedField(18, "ok", BooleanType()),
        NestedField(19, "local", TimestampType()),
        identifier_field_ids=[1])


class TableRoundTripTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def check_created(self, t, schema, spec, order):
        self.assertEqual(t.schema(), schema)
        self.assertEqual(str(t.schema()), str(schema))
        self.assertEqual(t.spec(), spec)
        self.assertEqual(t.sort_order().fields, order.fields)
        self.assertEqual(t.sort_order().order_id, 1)

    def test_create_on_a_path_and_in_a_catalog(self):
        schema = nested_schema()
        spec = PartitionSpec(PartitionField(3, 1000, DayTransform(), "ts_day"),
                             PartitionField(1, 1001, BucketTransform(8), "id_bucket"))
        order = SortOrder(SortField(2, direction=SortDirection.DESC, null_order=NullOrder.NULLS_FIRST),
                          SortField(4, TruncateTransform(10)))
        loc = os.path.join(self.dir.name, "t")
        with floe.Table.create(loc, schema, partition_spec=spec, sort_order=order) as t:
            self.check_created(t, schema, spec, order)
        with floe.Table.open(loc) as t:
            self.check_created(t, schema, spec, order)
            self.assertIsInstance(t.schema(), Schema)
            self.assertIsInstance(t.schema().find_field("point").field_type, StructType)
            self.assertIs(t.schema().find_field("amount").field_type, DecimalType(12, 2))

        cat = floe.load_catalog("c", uri="sqlite:///" + os.path.join(self.dir.name, "cat.db"),
                                warehouse=self.dir.name)
        self.addCleanup(cat.close)
        cat.create_namespace("db")
        t = cat.create_table("db.t", schema=schema, partition_spec=spec, sort_order=order)
        self.addCleanup(t.close)
        self.check_created(t, schema, spec, order)
        again = cat.load_table("db.t")
        self.addCleanup(again.close)
        self.check_created(again, schema, spec, order)

    def test_pyiceberg_defaults_and_unnumbered_partition_fields(self):
        schema = Schema(NestedField(1, "id", LongType(), True), NestedField(2, "ts", TimestampType()))
        # pyiceberg's create_table defaults: unpartitioned, unsorted.
        with floe.Table.create(os.path.join(self.dir.name, "a"), schema, partition_spec=UNPARTITIONED_PARTITION_SPEC,
                               sort_order=UNSORTED_SORT_ORDER) as t:
            self.assertTrue(t.spec().is_unpartitioned())
            self.assertTrue(t.sort_order().is_unsorted)
        # floe numbers partition fields given without field ids from 1000.
        spec = PartitionSpec(PartitionField(source_id=2, transform="hour", name="ts_hour"))
        with floe.Table.create(os.path.join(self.dir.name, "b"), schema, partition_spec=spec) as t:
            self.assertEqual(t.spec(), PartitionSpec(PartitionField(2, 1000, HourTransform(), "ts_hour")))
            self.assertEqual(repr(t.spec().fields[0].transform), "HourTransform()")

    def test_v3_types(self):
        schema = Schema(NestedField(1, "id", LongType(), True), NestedField(2, "ns", TimestampNanoType()),
                        NestedField(3, "nstz", TimestamptzNanoType()), NestedField(4, "v", VariantType()),
                        NestedField(5, "nothing", UnknownType()), NestedField(6, "g", GeometryType("EPSG:4326")),
                        NestedField(7, "geo", GeographyType()), NestedField(8, "geo2", GeographyType("OGC:CRS84", "karney")))
        with floe.Table.create(os.path.join(self.dir.name, "t"), schema, format_version=3) as t:
            self.assertEqual(t.schema(), schema)
            self.assertEqual(str(t.schema().find_field("g")), "6: g: optional geometry('EPSG:4326')")
        with self.assertRaises(FloeError) as e:
            floe.Table.create(os.path.join(self.dir.name, "v2"), schema, format_version=2)
        self.assertEqual(e.exception.code, Status.INVALID_ARGUMENT)

    def test_evolution_takes_the_classes(self):
        loc = os.path.join(self.dir.name, "t")
        schema = Schema(NestedField(1, "id", LongType(), True), NestedField(2, "name", StringType()))
        floe.Table.create(loc, schema).close()
        with floe.Table.open(loc) as t:
            with t.update_schema() as u:
                u.add_column("point", StructType(NestedField(0, "x", DoubleType()), NestedField(0, "y", DoubleType())))
                u.add_column("tags", ListType(0, StringType()), doc="labels")
                u.add_column("price", DecimalType(9, 2))
                u.update_column("id", field_type=LongType(), doc="the row")
            with t.update_spec() as s:
                s.add_field("id", BucketTransform(4), "id_b")
                s.add_field("name", TruncateTransform(2))
            with t.update_sort_order() as o:
                o.desc("price", IdentityTransform(), NullOrder.NULLS_FIRST)
        with floe.Table.open(loc) as t:
            got = t.schema()
            self.assertEqual(got.column_names, ["id", "name", "point.x", "point.y", "point", "tags.element", "tags",
                                                "price"])
            self.assertEqual(str(got.find_field("point")), "3: point: optional struct<4: x: optional double, "
                                                           "5: y: optional double>")
            self.assertEqual(got.find_field("tags").field_type, ListType(7, StringType()))
            self.assertEqual(got.find_field("price").field_type, DecimalType(9, 2))
            self.assertEqual(got.find_field("id").doc, "the row")
            self.assertEqual(t.spec(), PartitionSpec(PartitionField(1, 1000, BucketTransform(4), "id_b"),
                                                     PartitionField(2, 1001, TruncateTransform(2), "name_trunc_2"),
                                                     spec_id=1))
            self.assertEqual(t.sort_order().fields, [SortField(8, IdentityTransform(), SortDirection.DESC,
                                                               NullOrder.NULLS_FIRST)])
            # union_by_name takes a Schema.
            t.update_schema().union_by_name(Schema(NestedField(1, "id", LongType(), True), NestedField(2, "extra", BooleanType()))).commit()
        with floe.Table.open(loc) as t:
            self.assertEqual(t.schema().fields[-1], NestedField(9, "extra", BooleanType()))

    def test_create_from_an_arrow_schema(self):
        # pyiceberg's getting started creates its table from df.schema; any
        # __arrow_c_schema__ does (a floe Scan here: no pyarrow needed).
        from fixtures import fixture

        with fixture("duckdb_lineitem_iceberg").open() as src:
            columns = ["l_orderkey", "l_shipdate", "l_discount", "l_comment"]
            scan = src.scan(selected_fields=columns)
            want = [(c, src.schema().find_type(c)) for c in columns]
            with floe.Table.create(os.path.join(self.dir.name, "t"), scan) as t:
                self.assertEqual([(f.name, f.field_type) for f in t.schema().fields], want)
                self.assertEqual([f.field_id for f in t.schema().fields], [1, 2, 3, 4])

    def test_refused(self):
        with self.assertRaises(TypeError):
            floe.Table.create(os.path.join(self.dir.name, "t"), nested_schema(), partition_spec=42)
        bad = Schema(NestedField(1, "a", LongType()), NestedField(1, "b", LongType()))
        with self.assertRaises(FloeError) as e:
            floe.Table.create(os.path.join(self.dir.name, "t"), bad)
        self.assertEqual(e.exception.code, Status.INVALID_ARGUMENT)


if __name__ == "__main__":
    unittest.main()
