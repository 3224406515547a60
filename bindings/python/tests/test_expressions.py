"""floe.expressions: pyiceberg's expression classes as floe filters.

The property test builds random expression trees (every class, nested
And/Or/Not, literals drawn from each table's own values and their
neighbours) over the fixture tables written by Impala and DuckDB and over a
table holding NaN, infinities, quotes and nulls, and checks that each
selects exactly the rows that its text-filter twin (rendered here, through
floe's text parser) and a pure-Python evaluation of it on the unfiltered
rows select. A conversion that loses a digit, a type or an operator makes
the three disagree. FLOE_EXPR_SEED=<n> replays a run; FLOE_EXPR_COUNT=<n>
sets the expressions per table."""

import collections
import datetime
import decimal
import math
import os
import pickle
import random
import shutil
import struct
import sys
import tempfile
import unittest
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))

import floe  # noqa: E402
from floe import FloeError, Status  # noqa: E402
from floe import expressions as ex  # noqa: E402
from floe.expressions import (  # noqa: E402
    AlwaysFalse, AlwaysTrue, And, EqualTo, GreaterThan, GreaterThanOrEqual, In, IsNaN, IsNull, LessThan,
    LessThanOrEqual, Not, NotEqualTo, NotIn, NotNaN, NotNull, NotStartsWith, Or, Reference, StartsWith,
)

from fixtures import all_fixtures, fixture  # noqa: E402

SEED = int(os.environ.get("FLOE_EXPR_SEED", random.SystemRandom().randrange(1 << 30)))
COUNT = int(os.environ.get("FLOE_EXPR_COUNT", "30"))
BIG_TABLE_COUNT = max(1, COUNT // 4)  # lineitem: 51,793 rows read three ways per expression

UTC = datetime.timezone.utc

# ------------------------------------------------------------ columns


class Column:
    """A primitive column: its dotted name, Iceberg type and the path of
    keys to its value in a to_pylist() row."""

    def __init__(self, path, typ):
        self.path, self.type = path, typ
        self.name = ".".join(path)

    def get(self, row):
        for key in self.path:
            if row is None:
                return None
            row = row.get(key)
        return row

    @property
    def kind(self):
        return self.type.split("(")[0]


def primitive_columns(metadata):
    schema = next(s for s in metadata["schemas"] if s["schema-id"] == metadata["current-schema-id"])
    out = []

    def walk(fields, prefix):
        for f in fields:
            t = f["type"]
            if isinstance(t, dict):
                if t.get("type") == "struct":
                    walk(t["fields"], prefix + (f["name"],))
                continue  # lists and maps: no predicate reaches inside them
            out.append(Column(prefix + (f["name"],), t))

    walk(schema["fields"], ())
    return out


# ------------------------------------------------------------ generation

NEGATED = {
    EqualTo: NotEqualTo, NotEqualTo: EqualTo, LessThan: GreaterThanOrEqual, GreaterThanOrEqual: LessThan,
    GreaterThan: LessThanOrEqual, LessThanOrEqual: GreaterThan, In: NotIn, NotIn: In, IsNull: NotNull,
    NotNull: IsNull, IsNaN: NotNaN, NotNaN: IsNaN, StartsWith: NotStartsWith, NotStartsWith: StartsWith,
}
COMPARISONS = (EqualTo, NotEqualTo, LessThan, LessThanOrEqual, GreaterThan, GreaterThanOrEqual)
ORDERED_KINDS = {"int", "long", "float", "double", "decimal", "string", "date", "timestamp", "timestamptz",
                 "time", "uuid", "binary"}


FLOAT_MAX = 3.4028234663852886e38


def float32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def beside(v, step):
    try:
        return v + step
    except OverflowError:  # 0001-01-01 - 1 day
        return v


class Generator:
    def __init__(self, rng, columns, rows):
        self.rng = rng
        self.columns = columns
        self.values = {c.name: [v for v in (c.get(r) for r in rows) if v is not None] for c in columns}

    def literal(self, col):
        """A value of the column's type: one of its own, or one beside it;
        now and then one of another type that the column's converts from
        (an int for a decimal, a date or a timestamp, a float for a
        decimal, a Decimal for an integer)."""
        rng, vals = self.rng, self.values[col.name]
        v = rng.choice(vals) if vals else None
        k = col.kind
        if v is not None and rng.random() < 0.15:
            other = self.other_type(k, v)
            if other is not None:
                return other
        if k in ("int", "long"):
            v = 0 if v is None else v
            return v + rng.choice((0, 0, -1, 1))
        if k in ("float", "double"):
            finite = [x for x in vals if not math.isnan(x)]
            choice = rng.random()
            if choice < 0.1 or not finite:
                return rng.choice((math.inf, -math.inf, 0.0, -0.0))
            x = rng.choice(finite)
            if choice < 0.2 and not math.isinf(x):
                y = x * 1.5
                # Past a float's largest value: a double, as a literal may be.
                return y if k == "double" or abs(y) > FLOAT_MAX else float32(y)
            return x
        if k == "decimal":
            v = decimal.Decimal(0) if v is None else v
            scale = int(col.type.split(",")[1].rstrip(") "))
            unit = decimal.Decimal(1).scaleb(-scale)
            with decimal.localcontext(decimal.Context(prec=100)):  # exact: 28 digits would round
                return v + rng.choice((0, 0, unit, -unit, unit / 2))  # unit / 2: between two values
        if k == "string":
            v = "" if v is None else v
            return rng.choice((v, v, v + "'", v[: len(v) // 2], "it's", "", v.upper()))
        if k == "date":
            v = datetime.date(2024, 1, 1) if v is None else v
            return beside(v, datetime.timedelta(days=rng.choice((0, 0, -1, 1))))
        if k in ("timestamp", "timestamptz"):
            v = datetime.datetime(2024, 1, 1, tzinfo=UTC if k == "timestamptz" else None) if v is None else v
            return beside(v, datetime.timedelta(microseconds=rng.choice((0, 0, -1, 1))))
        if k == "boolean":
            return rng.choice((True, False)) if v is None else v
        if k == "uuid":
            return v if v is not None and rng.random() < 0.7 else uuid.UUID(int=rng.getrandbits(128))
        if k == "binary":
            return v if v is not None and rng.random() < 0.7 else bytes(rng.getrandbits(8) for _ in range(3))
        if k == "time":
            return v if v is not None else datetime.time(12, 0)
        raise AssertionError(f"no literal for {col.type}")

    @staticmethod
    def other_type(k, v):
        if k == "decimal":
            return int(v) if v == v.to_integral_value() else float(v)
        if k in ("int", "long"):
            return decimal.Decimal(v)
        if k == "double" and math.isfinite(v) and v == int(v):
            return int(v)
        if k == "date":
            return (v - datetime.date(1970, 1, 1)).days  # a number for a date is days
        if k in ("timestamp", "timestamptz"):
            delta = v.replace(tzinfo=None) - datetime.datetime(1970, 1, 1)
            return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds  # µs
        return None

    def predicate(self, col):
        rng, k = self.rng, col.kind
        classes = [IsNull, NotNull, EqualTo, NotEqualTo, In, NotIn]
        if k in ORDERED_KINDS:
            classes += [LessThan, LessThanOrEqual, GreaterThan, GreaterThanOrEqual]
        if k in ("float", "double"):
            classes += [IsNaN, NotNaN]
        if k == "string":
            classes += [StartsWith, NotStartsWith]
        cls = rng.choice(classes)
        term = col.name if rng.random() < 0.5 else Reference(col.name)
        if cls in (IsNull, NotNull, IsNaN, NotNaN):
            return cls(term)
        if cls in (In, NotIn):
            return cls(term, [self.literal(col) for _ in range(rng.randint(1, 4))])
        lit = self.literal(col)
        if cls in (StartsWith, NotStartsWith):
            lit = lit[: rng.randint(0, len(lit))]
        return cls(term, lit)

    def expression(self, depth=3):
        rng = self.rng
        r = rng.random()
        if depth == 0 or r < 0.35:
            if rng.random() < 0.04:
                return rng.choice((AlwaysTrue(), AlwaysFalse()))
            return self.predicate(rng.choice(self.columns))
        if r < 0.55:
            return Not(self.expression(depth - 1))
        if r < 0.6:
            return ~self.expression(depth - 1)
        children = [self.expression(depth - 1) for _ in range(rng.choice((2, 2, 3)))]
        if r < 0.8:
            return And(*children) if rng.random() < 0.8 else children[0] & children[1]
        return Or(*children) if rng.random() < 0.8 else children[0] | children[1]


# ------------------------------------------------------------ the text twin


def text_name(name):
    return ".".join('"' + part.replace('"', '""') + '"' for part in name.split("."))


def text_literal(lit):
    v = lit.value
    if isinstance(lit, ex.BooleanLiteral):
        return "true" if v else "false"
    if isinstance(lit, ex.LongLiteral):
        return str(v)
    if isinstance(lit, ex.DoubleLiteral):
        return repr(v) if math.isfinite(v) else ("'Infinity'" if v > 0 else "'-Infinity'")
    if isinstance(lit, ex.DecimalLiteral):
        return str(v)
    if isinstance(lit, ex.StringLiteral):
        return "'" + v.replace("'", "''") + "'"
    if isinstance(lit, ex.DateLiteral):
        return f"'{datetime.date(1970, 1, 1) + datetime.timedelta(days=v)}'"
    if isinstance(lit, ex.TimestampLiteral):
        return "'" + (datetime.datetime(1970, 1, 1, tzinfo=UTC) + datetime.timedelta(microseconds=v)).isoformat() + "'"
    if isinstance(lit, ex.UUIDLiteral):
        return f"'{uuid.UUID(bytes=v)}'"
    if isinstance(lit, ex.BinaryLiteral):
        return f"'{v.hex()}'"
    raise AssertionError(lit)


TEXT_OPS = {EqualTo: "=", NotEqualTo: "!=", LessThan: "<", LessThanOrEqual: "<=", GreaterThan: ">",
            GreaterThanOrEqual: ">="}


def to_text(e):
    """The filter in floe's (pyiceberg's) row_filter text."""
    if e is AlwaysTrue():
        return "true"
    if e is AlwaysFalse():
        return "false"
    if isinstance(e, And):
        return f"({to_text(e.left)}) and ({to_text(e.right)})"
    if isinstance(e, Or):
        return f"({to_text(e.left)}) or ({to_text(e.right)})"
    if isinstance(e, Not):
        return f"not ({to_text(e.child)})"
    name = text_name(e.term.name)
    unary = {IsNull: "is null", NotNull: "is not null", IsNaN: "is nan", NotNaN: "is not nan"}
    if type(e) in unary:
        return f"{name} {unary[type(e)]}"
    if type(e) in (In, NotIn):
        op = "in" if type(e) is In else "not in"
        return f"{name} {op} ({', '.join(text_literal(lit) for lit in e.literals)})"
    if type(e) in (StartsWith, NotStartsWith):
        prefix = e.literal.value.replace("\\", "\\\\").replace("%", "\\%").replace("'", "''")
        return f"{name} {'like' if type(e) is StartsWith else 'not like'} '{prefix}%'"
    return f"{name} {TEXT_OPS[type(e)]} {text_literal(e.literal)}"


# ------------------------------------------------------------ evaluation in Python


def python_value(lit, col):
    """The literal as the Python value to_pylist() gives the column."""
    v, k = lit.value, col.kind
    if isinstance(lit, ex.DateLiteral):
        return datetime.date(1970, 1, 1) + datetime.timedelta(days=v)
    if isinstance(lit, ex.TimestampLiteral):
        t = datetime.datetime(1970, 1, 1, tzinfo=UTC) + datetime.timedelta(microseconds=v)
        return t if k == "timestamptz" else t.replace(tzinfo=None)
    if isinstance(lit, ex.UUIDLiteral):
        return uuid.UUID(bytes=v)
    if isinstance(lit, ex.DoubleLiteral) and k == "float":
        return float32(v) if math.isfinite(v) and abs(v) <= FLOAT_MAX else v
    if isinstance(lit, ex.DoubleLiteral) and k == "decimal":
        return decimal.Decimal(repr(v))  # the float's shortest text, as pyiceberg converts it
    if isinstance(lit, ex.LongLiteral):
        if k == "date":
            return datetime.date(1970, 1, 1) + datetime.timedelta(days=v)
        if k in ("timestamp", "timestamptz"):
            t = datetime.datetime(1970, 1, 1, tzinfo=UTC) + datetime.timedelta(microseconds=v)
            return t if k == "timestamptz" else t.replace(tzinfo=None)
        if k == "float":
            return float32(float(v))
        if k == "double":
            return float(v)
    return v


def holds(e, row, columns, negate=False):
    """Iceberg's answer for row: a negation is pushed down to the predicates
    (Not(x < 5) is x >= 5), and a null fails every predicate but IsNull."""
    if e is AlwaysTrue():
        return not negate
    if e is AlwaysFalse():
        return negate
    if isinstance(e, Not):
        return holds(e.child, row, columns, not negate)
    if isinstance(e, (And, Or)):
        left, right = holds(e.left, row, columns, negate), holds(e.right, row, columns, negate)
        return (left and right) if isinstance(e, And) != negate else (left or right)
    cls = NEGATED[type(e)] if negate else type(e)
    col = columns[e.term.name]
    v = col.get(row)
    if cls is IsNull:
        return v is None
    if cls is NotNull:
        return v is not None
    if v is None:
        return False
    nan = isinstance(v, float) and math.isnan(v)
    if cls is IsNaN:
        return nan
    if cls is NotNaN:
        return not nan
    if cls in (In, NotIn):
        found = any(v == python_value(lit, col) for lit in e.literals)
        return found if cls is In else not found
    lit = python_value(e.literal, col)
    if cls is StartsWith:
        return v.startswith(lit)
    if cls is NotStartsWith:
        return not v.startswith(lit)
    if cls is EqualTo:
        return v == lit
    if cls is NotEqualTo:
        return v != lit
    if nan:
        return False
    return {LessThan: v < lit, LessThanOrEqual: v <= lit, GreaterThan: v > lit, GreaterThanOrEqual: v >= lit}[cls]


def bag(rows):
    return collections.Counter(repr(r) for r in rows)


# ------------------------------------------------------------ the tables

ODD_SCHEMA = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "id", "required": True, "type": "long"},
    {"id": 2, "name": "d", "required": False, "type": "double"},
    {"id": 3, "name": "f", "required": False, "type": "float"},
    {"id": 4, "name": "s", "required": False, "type": "string"},
    {"id": 5, "name": "amount", "required": False, "type": "decimal(38, 10)"},
    {"id": 6, "name": "day", "required": False, "type": "date"},
    {"id": 7, "name": "at", "required": False, "type": "timestamptz"},
    {"id": 8, "name": "flag", "required": False, "type": "boolean"},
    {"id": 9, "name": "select", "required": False, "type": "int"},  # a keyword as a column name
]}

ODD_ROWS = [
    {"id": 0, "d": "NaN", "f": "NaN", "s": None, "amount": decimal.Decimal("12345678901234567890.0123456789"),
     "day": datetime.date(1, 1, 1), "at": datetime.datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
     "flag": True, "select": -2147483648},
    {"id": 1, "d": 1.5, "f": 0.1, "s": "it's", "amount": decimal.Decimal("-0.0000000001"),
     "day": datetime.date(9999, 12, 31), "at": datetime.datetime(2024, 2, 29, 12, 0, tzinfo=UTC), "flag": False,
     "select": 2147483647},
    {"id": 2, "d": None, "f": None, "s": "100% \\ sure_'quoted'", "amount": None, "day": None, "at": None,
     "flag": None, "select": None},
    {"id": 3, "d": "Infinity", "f": "-Infinity", "s": "ünïcödé ✓", "amount": decimal.Decimal("0"),
     "day": datetime.date(1970, 1, 1), "at": datetime.datetime(1970, 1, 1, tzinfo=UTC), "flag": True, "select": 0},
    {"id": 4, "d": -0.0, "f": 3.4028234663852886e38, "s": "", "amount": decimal.Decimal("1E-10"),
     "day": datetime.date(2000, 2, 29), "at": datetime.datetime(2262, 4, 12, tzinfo=UTC), "flag": False,
     "select": 7},
    {"id": 5, "d": 5e-324, "f": 1e-45, "s": "it", "amount": decimal.Decimal("99999999999999999999.9999999999"),
     "day": datetime.date(1969, 12, 31), "at": datetime.datetime(1, 1, 1, tzinfo=UTC), "flag": None,
     "select": 1},
]


class ExpressionRowsTest(unittest.TestCase):
    """Each random expression selects the rows of its text twin and of a
    pure-Python evaluation of it."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="floe-py-expr-")
        t = floe.Table.create(os.path.join(cls.dir, "odd"), ODD_SCHEMA)
        t.append(ODD_ROWS)
        t.close()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def check_table(self, name, table, count):
        with table as t:
            columns = primitive_columns(t.metadata)
            rows = t.scan().to_pylist()
            self.assertTrue(rows, name)
            by_name = {c.name: c for c in columns}
            gen = Generator(random.Random(f"{SEED}:{name}"), columns, rows)
            for i in range(count):
                e = gen.expression()
                text = to_text(e)
                where = f"{name} #{i} (FLOE_EXPR_SEED={SEED}): {e!r}\n  text: {text}"
                got = bag(t.scan(row_filter=e).to_pylist())
                self.assertEqual(got, bag(t.scan(row_filter=text).to_pylist()), where)
                self.assertEqual(got, bag(r for r in rows if holds(e, r, by_name)), where)
                # count() takes the same expression (the manifests or a read).
                self.assertEqual(t.scan(row_filter=e).count(), sum(got.values()), where)

    def test_fixture_tables(self):
        for f in all_fixtures():
            with self.subTest(table=f.name):
                big = f.name == "duckdb_lineitem_iceberg"
                self.check_table(f.name, f.open(), BIG_TABLE_COUNT if big else COUNT)

    def test_nan_infinity_quotes_and_extremes(self):
        self.check_table("odd", floe.Table.open(os.path.join(self.dir, "odd")), COUNT * 3)

    def test_every_class_is_generated(self):
        # The property above reaches every class (else it proves little).
        seen = set()
        with fixture("impala_iceberg_v3_all_types").open() as t:
            gen = Generator(random.Random(SEED), primitive_columns(t.metadata), t.scan().to_pylist())
            for _ in range(400):
                stack = [gen.expression()]
                while stack:
                    e = stack.pop()
                    seen.add(type(e))
                    stack.extend(getattr(e, k) for k in ("left", "right", "child") if hasattr(e, k))
        self.assertLessEqual(set(NEGATED) | {And, Or, Not}, seen)


class ExactLiteralsTest(unittest.TestCase):
    """Literals reach their columns exactly: every digit of a decimal,
    the very double, bool apart from int, instants across zones."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="floe-py-expr-lit-")
        self.t = floe.Table.create(os.path.join(self.dir, "t"), ODD_SCHEMA)
        self.t.append(ODD_ROWS)

    def tearDown(self):
        self.t.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def ids(self, e):
        return sorted(r["id"] for r in self.t.scan(row_filter=e, selected_fields=["id"]).to_pylist())

    def test_literals(self):
        big = decimal.Decimal("12345678901234567890.0123456789")
        self.assertEqual(self.ids(EqualTo("amount", big)), [0])
        # One unit of the last place away is another value: no rounding.
        self.assertEqual(self.ids(EqualTo("amount", decimal.Decimal("12345678901234567890.0123456790"))), [])
        self.assertEqual(self.ids(GreaterThan("amount", decimal.Decimal("12345678901234567890.0123456788"))), [0, 5])
        self.assertEqual(self.ids(GreaterThan("amount", decimal.Decimal("12345678901234567890.01234567895"))), [5])
        # And they read back with every digit (Python's default context has 28).
        self.assertEqual([r["amount"] for r in self.t.scan(selected_fields=["amount"]).to_pylist()],
                         [r["amount"] for r in ODD_ROWS])
        self.assertEqual(self.ids(EqualTo("amount", decimal.Decimal("1E-10"))), [4])
        self.assertEqual(self.ids(EqualTo("d", 5e-324)), [5])
        self.assertEqual(self.ids(EqualTo("f", float32(0.1))), [1])
        self.assertEqual(self.ids(EqualTo("d", -0.0)), [4])
        self.assertEqual(self.ids(GreaterThan("d", 1e308)), [3])
        self.assertEqual(self.ids(EqualTo("d", math.inf)), [3])
        self.assertEqual(self.ids(IsNaN("d")), [0])
        self.assertEqual(self.ids(NotNaN("d")), [1, 3, 4, 5])
        self.assertEqual(self.ids(EqualTo("flag", True)), [0, 3])
        self.assertEqual(self.ids(In("select", [-2147483648, 2147483647])), [0, 1])
        # 2024-02-29 12:00 UTC, said in another zone.
        east = datetime.timezone(datetime.timedelta(hours=5, minutes=30))
        self.assertEqual(self.ids(EqualTo("at", datetime.datetime(2024, 2, 29, 17, 30, tzinfo=east))), [1])
        self.assertEqual(self.ids(LessThan("at", datetime.datetime(1970, 1, 1))), [0, 5])  # naive is UTC
        self.assertEqual(self.ids(EqualTo("day", datetime.date(1, 1, 1))), [0])
        self.assertEqual(self.ids(StartsWith("s", "100% \\")), [2])
        self.assertEqual(self.ids(StartsWith("s", "it")), [1, 5])
        self.assertEqual(self.ids(NotStartsWith("s", "it")), [2, 3, 4])  # the null row fails both
        self.assertEqual(self.ids(EqualTo("s", "ünïcödé ✓")), [3])
        self.assertEqual(self.ids(Not(LessThan("select", 1))), [1, 4, 5])  # null fails x < 1 and its negation

    def test_bool_is_not_int(self):
        for e in (EqualTo("select", True), EqualTo("flag", 1)):
            with self.subTest(e=e):
                with self.assertRaises(FloeError) as ctx:
                    self.ids(e)
                self.assertEqual(ctx.exception.code, Status.INVALID_ARGUMENT)

    def test_typed_literals(self):
        # uuid, binary and time columns get their Iceberg values from the
        # Python objects.
        schema = {"type": "struct", "schema-id": 0, "fields": [
            {"id": 1, "name": "id", "required": True, "type": "long"},
            {"id": 2, "name": "u", "required": False, "type": "uuid"},
            {"id": 3, "name": "b", "required": False, "type": "binary"},
            {"id": 4, "name": "tm", "required": False, "type": "time"},
            {"id": 5, "name": "ns", "required": False, "type": "timestamp_ns"},
        ]}
        u = uuid.UUID("8dc314d8-3fd4-4b3a-8bf5-c008f363c2e4")
        with floe.Table.create(os.path.join(self.dir, "typed"), schema, format_version=3) as t:
            t.append([{"id": 0, "u": u, "b": b"\x00\xff'", "tm": datetime.time(23, 59, 59, 999999),
                       "ns": "2024-01-01T00:00:00.000001"},
                      {"id": 1, "u": uuid.UUID(int=1), "b": b"", "tm": datetime.time(0, 0), "ns": None}])

            def ids(e):
                return sorted(r["id"] for r in t.scan(row_filter=e, selected_fields=["id"]).to_pylist())

            self.assertEqual(ids(EqualTo("u", u)), [0])
            self.assertEqual(ids(GreaterThan("u", uuid.UUID(int=1))), [0])
            self.assertEqual(ids(EqualTo("b", b"\x00\xff'")), [0])
            self.assertEqual(ids(EqualTo("b", b"")), [1])
            self.assertEqual(ids(EqualTo("tm", datetime.time(23, 59, 59, 999999))), [0])
            self.assertEqual(ids(LessThan("tm", datetime.time(0, 0, 0, 1))), [1])
            self.assertEqual(ids(EqualTo("ns", datetime.datetime(2024, 1, 1, 0, 0, 0, 1))), [0])
            self.assertEqual(ids(GreaterThan("ns", datetime.datetime(2024, 1, 1))), [0])


class WriteWithExpressionsTest(unittest.TestCase):
    """delete_rows, overwrite and transactions take expressions, on a copy
    of Impala's table (i, j; j null in one row)."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="floe-py-expr-write-")
        self.loc = os.path.join(self.dir, "t")
        shutil.copytree(fixture("impala_test_default_part").location, self.loc)

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def rows(self, t):
        return sorted((r["i"], r["j"]) for r in t.refresh().scan().to_pylist())

    def test_delete_rows(self):
        with floe.Table.open(self.loc) as t:
            before = self.rows(t)
            e = Or(IsNull("j"), And(GreaterThan("j", 0), Not(EqualTo("i", 4))))
            t.delete_rows(e)
            self.assertEqual(self.rows(t), [r for r in before if not (r[1] is None or (r[1] > 0 and r[0] != 4))])
            self.assertEqual(self.rows(t), [(1, -1), (2, -1), (4, 10)])

    def test_overwrite(self):
        with floe.Table.open(self.loc) as t:
            t.overwrite([{"i": 100, "j": 1}], In("i", [1, 2, 3]))
            self.assertEqual(self.rows(t), [(4, 10), (5, None), (100, 1)])

    def test_transaction(self):
        with floe.Table.open(self.loc) as t:
            with t.transaction() as tx:
                tx.delete(LessThan("j", 0))
                tx.overwrite([{"i": 7, "j": 7}], overwrite_filter=EqualTo("i", 5))
            self.assertEqual(self.rows(t), [(3, 5), (4, 10), (7, 7)])

    def test_rewrite_data_files(self):
        # Four files of ids 0-4, 5-9, …: the expression picks two of them,
        # as its text twin does.
        schema = {"type": "struct", "schema-id": 0, "fields": [{"id": 1, "name": "id", "required": True, "type": "long"}]}
        for row_filter, rewritten in ((Or(LessThan("id", 5), GreaterThanOrEqual("id", 15)), 2),
                                      ("id < 5 or id >= 15", 2), (AlwaysTrue(), 4)):
            with self.subTest(row_filter=row_filter):
                with floe.Table.create(os.path.join(self.dir, f"r{id(row_filter)}"), schema) as t:
                    for i in range(4):
                        t.append([{"id": 5 * i + j} for j in range(5)])
                    res = t.maintenance.rewrite_data_files(row_filter=row_filter, min_input_files=2)
                    self.assertEqual(res["rewritten_data_files_count"], rewritten, res)
                    self.assertEqual(sorted(r["id"] for r in t.refresh().scan().to_pylist()), list(range(20)))

    def test_always_false_deletes_nothing(self):
        with floe.Table.open(self.loc) as t:
            before = self.rows(t)
            t.delete_rows(AlwaysFalse())
            self.assertEqual(self.rows(t), before)
            t.delete_rows(AlwaysTrue())
            self.assertEqual(self.rows(t), [])


class AcceptedEverywhereTest(unittest.TestCase):
    def test_scan_forms_and_inspect(self):
        with fixture("impala_iceberg_partitioned").open() as t:
            e = GreaterThan("id", 10)
            self.assertEqual(t.scan(row_filter=e).count(), 10)
            self.assertEqual(len(t.scan(row_filter=e).plan_files()), 10)
            scan = t.scan()
            scan.add_filter(NotEqualTo("action", "click"))
            scan.add_filter(e)
            self.assertEqual(sorted(r["id"] for r in scan.to_pylist()),
                             sorted(r["id"] for r in t.scan(row_filter="id > 10 and action != 'click'").to_pylist()))
            inc = t.incremental_append_scan(row_filter=e).count()
            self.assertEqual(inc, t.incremental_append_scan(row_filter="id > 10").count())
            self.assertEqual(len(t.changelog_scan(row_filter=e).to_pylist()),
                             len(t.changelog_scan(row_filter="id > 10").to_pylist()))
            snaps = t.inspect.snapshots(row_filter=EqualTo("operation", "append")).to_pylist()
            self.assertTrue(snaps)
            self.assertEqual(snaps, t.inspect.snapshots(row_filter="operation = 'append'").to_pylist())
            self.assertEqual(t.inspect.snapshots(row_filter=NotEqualTo("operation", "append")).to_pylist(),
                             t.inspect.snapshots(row_filter="operation != 'append'").to_pylist())

    def test_dask(self):
        try:
            import dask.dataframe  # noqa: F401
            import floe.dask as fdask
        except ImportError:
            self.skipTest("dask is not installed")
        f = fixture("impala_iceberg_partitioned")
        e = And(GreaterThan("id", 4), NotEqualTo("action", "click"))

        def ids(row_filter):  # the default (threaded, in-process) scheduler
            ddf = fdask.read_table(f.location, columns=["id"], row_filter=row_filter, location_map=f.location_map,
                                   split_size=1)
            return sorted(ddf.compute()["id"].tolist())

        self.assertEqual(ids(e), ids("id > 4 and action != 'click'"))
        self.assertTrue(ids(e))
        with tempfile.TemporaryDirectory(prefix="floe-py-expr-dask-") as d:
            schema = {"type": "struct", "schema-id": 0,
                      "fields": [{"id": 1, "name": "id", "required": True, "type": "long"}]}
            with floe.Table.create(os.path.join(d, "t"), schema) as t:
                for i in range(4):
                    t.append([{"id": 5 * i + j} for j in range(5)])
            res = fdask.rewrite_data_files(os.path.join(d, "t"), row_filter=LessThan("id", 10), min_input_files=2)
            self.assertEqual(res["rewritten_data_files_count"], 2, res)

    def test_pyiceberg_objects(self):
        # Stand-ins shaped as pyiceberg's classes are (name, module,
        # attributes): pyiceberg itself is not installed here.
        def cls(name, *fields):
            def init(self, *args):
                for f, a in zip(fields, args):
                    setattr(self, f, a)
            return type(name, (), {"__init__": init, "__module__": "pyiceberg.expressions"})

        lits = {n: cls(n, "value") for n in ("LongLiteral", "StringLiteral", "DateLiteral", "FloatLiteral")}
        P = {n: cls(n, "term", "literal") for n in ("EqualTo", "GreaterThan", "StartsWith")}
        P.update({n: cls(n, "term", "literals") for n in ("In", "NotIn")})
        P.update({n: cls(n, "term") for n in ("IsNull", "NotNull")})
        P.update(And=cls("And", "left", "right"), Not=cls("Not", "child"), Reference=cls("Reference", "name"),
                 AlwaysTrue=cls("AlwaysTrue"), BoundReference=cls("BoundReference", "field"))
        ref = P["Reference"]
        theirs = P["And"](P["Not"](P["In"](ref("action"), {lits["StringLiteral"]("click"), lits["StringLiteral"]("x")})),
                          P["And"](P["GreaterThan"](ref("id"), lits["LongLiteral"](4)),
                                   P["StartsWith"](ref("user"), lits["StringLiteral"]("Al"))))
        ours = And(Not(In("action", ["click", "x"])), And(GreaterThan("id", 4), StartsWith("user", "Al")))
        self.assertEqual(ex.from_pyiceberg(theirs), ours)
        with fixture("impala_iceberg_partitioned").open() as t:
            want = t.scan(row_filter=ours).to_pylist()
            self.assertTrue(want)
            self.assertEqual(t.scan(row_filter=theirs).to_pylist(), want)
            self.assertEqual(t.scan(row_filter=P["AlwaysTrue"]()).count(), 20)
            with self.assertRaises(FloeError) as ctx:  # bound: no column name to send
                t.scan(row_filter=P["EqualTo"](P["BoundReference"](None), lits["LongLiteral"](1)))
            self.assertEqual(ctx.exception.code, Status.INVALID_ARGUMENT)
        self.assertEqual(ex.from_pyiceberg(P["EqualTo"](ref("d"), lits["DateLiteral"](10))),
                         EqualTo("d", datetime.date(1970, 1, 11)))
        self.assertEqual(ex.from_pyiceberg(P["EqualTo"](ref("f"), lits["FloatLiteral"](0.5))), EqualTo("f", 0.5))

    def test_wrong_types_are_invalid_argument(self):
        with fixture("impala_iceberg_partitioned").open() as t:
            for call in (lambda: t.scan(row_filter=10), lambda: t.scan().add_filter(object()),
                         lambda: t.delete_rows(["id > 1"]), lambda: t.inspect.snapshots(row_filter=1.5)):
                with self.assertRaises(FloeError) as ctx:
                    call()
                self.assertEqual(ctx.exception.code, Status.INVALID_ARGUMENT)
                self.assertIn("floe.expressions", ctx.exception.message)
            # An expression naming a column the table lacks is floe's error.
            with self.assertRaises(FloeError) as ctx:
                t.scan(row_filter=EqualTo("nope", 1)).count()
            self.assertEqual(ctx.exception.code, Status.INVALID_ARGUMENT)
            self.assertIn("nope", ctx.exception.message)


class ConstructionTest(unittest.TestCase):
    """As pyiceberg builds, prints and compares them."""

    def test_repr(self):
        self.assertEqual(repr(EqualTo("id", 5)), "EqualTo(term=Reference(name='id'), literal=LongLiteral(5))")
        self.assertEqual(repr(IsNull(Reference("x"))), "IsNull(term=Reference(name='x'))")
        self.assertEqual(repr(In("s", ["b", "a"])),
                         "In(Reference(name='s'), {StringLiteral('a'), StringLiteral('b')})")
        self.assertEqual(repr(And(EqualTo("a", True), Not(LessThan("b", decimal.Decimal("1.50"))))),
                         "And(left=EqualTo(term=Reference(name='a'), literal=BooleanLiteral(True)), "
                         "right=Not(child=LessThan(term=Reference(name='b'), "
                         "literal=DecimalLiteral(Decimal('1.50')))))")
        self.assertEqual(repr(EqualTo("d", datetime.date(1970, 1, 11))),
                         "EqualTo(term=Reference(name='d'), literal=DateLiteral(10))")
        self.assertEqual(repr(AlwaysTrue()), "AlwaysTrue()")

    def test_equality(self):
        self.assertEqual(EqualTo("a", 1), EqualTo(Reference("a"), 1))
        self.assertNotEqual(EqualTo("a", 1), EqualTo("a", True))
        self.assertNotEqual(EqualTo("a", 1), NotEqualTo("a", 1))
        self.assertEqual(In("a", [1, 2, 2]), In("a", (2, 1)))
        self.assertEqual(And(IsNull("a"), IsNull("b"), IsNull("c")), And(And(IsNull("a"), IsNull("b")), IsNull("c")))
        self.assertEqual(hash(In("a", [1, 2])), hash(In("a", [2, 1])))
        e = Or(StartsWith("s", "x"), Not(In("a", iter([1, 2]))))
        self.assertEqual(pickle.loads(pickle.dumps(e)), e)
        self.assertIs(pickle.loads(pickle.dumps(AlwaysFalse())), AlwaysFalse())

    def test_simplification_and_negation(self):
        self.assertEqual(In("a", [1]), EqualTo("a", 1))
        self.assertIs(In("a", []), AlwaysFalse())
        self.assertEqual(NotIn("a", [1, 1]), NotEqualTo("a", 1))
        self.assertIs(NotIn("a", []), AlwaysTrue())
        self.assertIs(And(AlwaysTrue(), AlwaysFalse()), AlwaysFalse())
        self.assertEqual(Or(AlwaysFalse(), IsNull("a")), IsNull("a"))
        self.assertEqual(Not(Not(IsNull("a"))), IsNull("a"))
        self.assertEqual(~LessThan("a", 1), GreaterThanOrEqual("a", 1))
        self.assertEqual(~And(IsNull("a"), StartsWith("s", "x")), Or(NotNull("a"), NotStartsWith("s", "x")))
        self.assertEqual(IsNull("a") & NotNull("b"), And(IsNull("a"), NotNull("b")))
        self.assertEqual(IsNull("a") | NotNull("b"), Or(IsNull("a"), NotNull("b")))

    def test_numpy_scalars(self):
        try:
            import numpy as np
        except ImportError:
            self.skipTest("numpy is not installed")
        self.assertEqual(EqualTo("a", np.int64(5)), EqualTo("a", 5))
        self.assertEqual(EqualTo("a", np.bool_(True)), EqualTo("a", True))
        self.assertEqual(EqualTo("a", np.float32(0.5)), EqualTo("a", 0.5))
        self.assertEqual(In("a", np.array([1, 2])), In("a", [1, 2]))
        with self.assertRaises(TypeError):
            EqualTo("a", np.datetime64("2024-01-01"))  # no unit-free reading: pass a date

    def test_refused(self):
        for bad, error in ((lambda: EqualTo("a", math.nan), ValueError),
                           (lambda: EqualTo("a", decimal.Decimal("NaN")), ValueError),
                           (lambda: EqualTo("a", None), TypeError), (lambda: EqualTo(1, 1), TypeError),
                           (lambda: StartsWith("s", 1), TypeError), (lambda: In("s", "abc"), TypeError),
                           (lambda: And(IsNull("a"), "b > 1"), TypeError)):
            with self.assertRaises(error):
                bad()


if __name__ == "__main__":
    unittest.main()
