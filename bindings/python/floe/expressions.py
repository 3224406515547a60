"""Row filters built from classes with pyiceberg's names.

A pyiceberg program's filters work here with only the import changed::

    from floe.expressions import And, EqualTo, GreaterThanOrEqual, In, IsNull, Not

    row_filter = And(GreaterThanOrEqual("l_shipdate", datetime.date(1998, 9, 1)),
                     In("l_shipmode", ["AIR", "MAIL"]),
                     Not(IsNull("l_comment")))
    t.scan(row_filter=row_filter).to_arrow()
    t.delete_rows(EqualTo("id", 5))

Every place that takes a filter string (scan and its incremental and
changelog forms, Scan.add_filter, delete_rows, overwrite, transactions,
inspect, rewrite_data_files) takes one of these too. An expression becomes
floe's exact filter: the Iceberg REST JSON expression, its literals matched
to the column's type when the filter is bound, as text literals are, so a
decimal.Decimal keeps every digit, a float is the same double, a bool stays a
bool (never 1), and dates, times, timestamps, UUIDs and bytes reach their
columns as the Iceberg values they stand for.

Construction, repr, equality and negation (``~``) follow pyiceberg: terms
are column names or Reference; And/Or take two or more children; In with one
literal is EqualTo and with none AlwaysFalse; Not(Not(x)) is x; ``a & b`` and
``a | b`` build And and Or. Literals keep pyiceberg's values (days for dates,
microseconds for times and timestamps, 16 bytes for UUIDs). NaN is matched by
IsNaN and NotNaN only: a NaN literal is refused, as pyiceberg refuses it.

Expressions built from pyiceberg's own classes (pyiceberg installed beside
floe, or pyiceberg.expressions.parser) are accepted as well: from_pyiceberg()
turns them into these.

Rows with a null in the column fail every predicate but IsNull (NotEqualTo,
NotIn and NotStartsWith too), and Not(p) is p's negation (Not(LessThan(x, 5))
is GreaterThanOrEqual(x, 5)), as Iceberg's SQL engines filter.
"""

import datetime as _dt
import decimal as _decimal
import math as _math
import uuid as _uuid

from ._errors import FloeError, Status

__all__ = [
    "AlwaysFalse", "AlwaysTrue", "And", "BooleanExpression", "EqualTo", "GreaterThan", "GreaterThanOrEqual", "In",
    "IsNaN", "IsNull", "LessThan", "LessThanOrEqual", "Not", "NotEqualTo", "NotIn", "NotNaN", "NotNull",
    "NotStartsWith", "Or", "Reference", "StartsWith", "literal",
    "BinaryLiteral", "BooleanLiteral", "DateLiteral", "DecimalLiteral", "DoubleLiteral", "Literal", "LongLiteral",
    "StringLiteral", "TimeLiteral", "TimestampLiteral", "UUIDLiteral", "from_pyiceberg",
]

_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
_EPOCH_DATE = _dt.date(1970, 1, 1)

# ---------------------------------------------------------------- literals


class Literal:
    """A typed value of a predicate. ``value`` is pyiceberg's form of it;
    ``_json()`` the JSON value floe's filter binds to the column's type."""

    __slots__ = ("_value",)
    _python_type = object

    def __init__(self, value):
        # bool is an int to Python: kept apart, as JSON keeps true apart from 1.
        if value is None or not isinstance(value, self._python_type) or (
                isinstance(value, bool) and self._python_type is int):
            raise TypeError(f"Invalid literal value: {value!r} (not a {self._python_type.__name__})")
        self._value = value

    @property
    def value(self):
        return self._value

    def __repr__(self):
        return f"{type(self).__name__}({self._value!r})"

    def __str__(self):
        return str(self._value)

    def __eq__(self, other):
        # The class too: BooleanLiteral(True) is not LongLiteral(1).
        return type(self) is type(other) and self._value == other._value

    def __hash__(self):
        return hash((type(self).__name__, self._value))

    def _json(self):
        return self._value


class BooleanLiteral(Literal):
    __slots__ = ()
    _python_type = bool


class LongLiteral(Literal):
    __slots__ = ()
    _python_type = int


class DoubleLiteral(Literal):
    __slots__ = ()
    _python_type = float

    def __init__(self, value):
        super().__init__(value)
        if _math.isnan(value):
            raise ValueError("Cannot create expression literal from NaN.")

    def _json(self):
        # JSON has no infinity: as text, which a float column reads as one
        # (Iceberg's JSON single-value form writes them so).
        if _math.isinf(self._value):
            return "Infinity" if self._value > 0 else "-Infinity"
        return self._value


class StringLiteral(Literal):
    __slots__ = ()
    _python_type = str


class DecimalLiteral(Literal):
    __slots__ = ()
    _python_type = _decimal.Decimal

    def __init__(self, value):
        super().__init__(value)
        if not value.is_finite():
            raise ValueError(f"Cannot create expression literal from {value}.")

    # _json: the Decimal itself, written with exactly its digits (_calls._dumps).


class DateLiteral(Literal):
    """Days since 1970-01-01."""

    __slots__ = ()
    _python_type = int

    def _json(self):
        try:
            return (_EPOCH_DATE + _dt.timedelta(days=self._value)).isoformat()
        except OverflowError:
            # Beyond Python's dates: floe reads a number for a date column as days.
            return self._value


class TimeLiteral(Literal):
    """Microseconds since midnight."""

    __slots__ = ()
    _python_type = int

    def _json(self):
        if not 0 <= self._value < 86_400_000_000:
            return self._value  # out of a day's range: floe places it beyond every time
        seconds, micros = divmod(self._value, 1_000_000)
        minutes, second = divmod(seconds, 60)
        hour, minute = divmod(minutes, 60)
        return f"{hour:02d}:{minute:02d}:{second:02d}.{micros:06d}"


class TimestampLiteral(Literal):
    """Microseconds since 1970-01-01 00:00 UTC (a datetime without a zone
    is taken as UTC, as pyiceberg and Iceberg take it)."""

    __slots__ = ()
    _python_type = int

    def _json(self):
        # ISO text rather than the number: a nanosecond column reads a bare
        # number as nanoseconds, the text as the instant it names.
        try:
            return (_EPOCH + _dt.timedelta(microseconds=self._value)).isoformat()
        except OverflowError:
            raise ValueError(f"timestamp literal {self._value} µs is outside the years 1-9999") from None


class UUIDLiteral(Literal):
    """The UUID's 16 bytes."""

    __slots__ = ()
    _python_type = bytes

    def __init__(self, value):
        super().__init__(value)
        if len(value) != 16:
            raise ValueError(f"a UUID literal has 16 bytes, not {len(value)}")

    def _json(self):
        return str(_uuid.UUID(bytes=self._value))


class BinaryLiteral(Literal):
    __slots__ = ()
    _python_type = bytes

    def _json(self):
        return self._value.hex()  # binary and fixed columns read hex


def literal(value):
    """The Literal for a Python value, as pyiceberg's literal() picks it:
    bool, int, float, str, uuid.UUID, bytes, decimal.Decimal, datetime,
    date, time (a Literal is returned as it is), and numpy's bool, integer
    and float scalars as the Python values they hold."""
    if isinstance(value, Literal):
        return value
    if type(value).__module__ == "numpy" and getattr(getattr(value, "dtype", None), "kind", "") in "biuf":
        value = value.item()  # a value taken from a pandas column: its Python bool, int or float
    if isinstance(value, bool):
        return BooleanLiteral(value)
    if isinstance(value, int):
        return LongLiteral(int(value))
    if isinstance(value, float):
        return DoubleLiteral(float(value))
    if isinstance(value, str):
        return StringLiteral(value)
    if isinstance(value, _uuid.UUID):
        return UUIDLiteral(value.bytes)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return BinaryLiteral(bytes(value))
    if isinstance(value, _decimal.Decimal):
        return DecimalLiteral(value)
    if isinstance(value, _dt.datetime):  # before date: a datetime is a date
        aware = value if value.tzinfo is not None else value.replace(tzinfo=_dt.timezone.utc)
        delta = aware - _EPOCH
        return TimestampLiteral((delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds)
    if isinstance(value, _dt.date):
        return DateLiteral((value - _EPOCH_DATE).days)
    if isinstance(value, _dt.time):
        if value.tzinfo is not None:
            raise TypeError(f"Invalid literal value: {value!r} (a time of day has no zone in Iceberg)")
        return TimeLiteral(((value.hour * 60 + value.minute) * 60 + value.second) * 1_000_000 + value.microsecond)
    raise TypeError(f"Invalid literal value: {value!r}")


_to_literal = literal  # for the predicates, whose argument is named literal as in pyiceberg


# ---------------------------------------------------------------- terms


class Reference:
    """A column by name (dots for nested fields: "location.lat")."""

    __slots__ = ("name",)

    def __init__(self, name):
        if not isinstance(name, str) or not name:
            raise TypeError(f"a column name must be a non-empty str, not {name!r}")
        self.name = name

    def __repr__(self):
        return f"Reference(name={self.name!r})"

    def __eq__(self, other):
        return isinstance(other, Reference) and self.name == other.name

    def __hash__(self):
        return hash(("Reference", self.name))


def _term(term):
    if isinstance(term, Reference):
        return term
    if isinstance(term, str):
        return Reference(term)
    raise TypeError(f"a term is a column name or a Reference, not {type(term).__name__}")


# ---------------------------------------------------------------- expressions


class BooleanExpression:
    """An expression that is true or false for each row."""

    __slots__ = ()

    def __invert__(self):
        raise NotImplementedError

    def __and__(self, other):
        return And(self, other)

    def __or__(self, other):
        return Or(self, other)

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def _json(self):
        raise NotImplementedError


class _Singleton(BooleanExpression):
    __slots__ = ()
    _instance = None

    def __new__(cls):
        if cls.__dict__.get("_instance") is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self):
        return f"{type(self).__name__}()"

    def __eq__(self, other):
        return type(self) is type(other)

    def __hash__(self):
        return hash(type(self).__name__)

    def __reduce__(self):
        return (type(self), ())


class AlwaysTrue(_Singleton):
    """Every row."""

    __slots__ = ()

    def __invert__(self):
        return AlwaysFalse()

    def _json(self):
        return {"type": "true"}


class AlwaysFalse(_Singleton):
    """No row."""

    __slots__ = ()

    def __invert__(self):
        return AlwaysTrue()

    def _json(self):
        return {"type": "false"}


def _expr(value, where):
    if not isinstance(value, BooleanExpression):
        raise TypeError(f"{where} takes expressions, not {type(value).__name__}")
    return value


class And(BooleanExpression):
    """Rows both children match; And(a, b, c, …) nests to the left."""

    __slots__ = ("left", "right")

    def __new__(cls, left, right, *rest):
        if rest:
            out = And(left, right)
            for r in rest:
                out = And(out, r)
            return out
        left, right = _expr(left, "And"), _expr(right, "And")
        if left is AlwaysFalse() or right is AlwaysFalse():
            return AlwaysFalse()
        if left is AlwaysTrue():
            return right
        if right is AlwaysTrue():
            return left
        obj = super().__new__(cls)
        obj.left, obj.right = left, right
        return obj

    def __repr__(self):
        return f"And(left={self.left!r}, right={self.right!r})"

    def __eq__(self, other):
        return isinstance(other, And) and self.left == other.left and self.right == other.right

    def __hash__(self):
        return hash(("And", self.left, self.right))

    def __invert__(self):
        return Or(~self.left, ~self.right)

    def __getnewargs__(self):
        return (self.left, self.right)

    def _json(self):
        return {"type": "and", "left": self.left._json(), "right": self.right._json()}


class Or(BooleanExpression):
    """Rows either child matches; Or(a, b, c, …) nests to the left."""

    __slots__ = ("left", "right")

    def __new__(cls, left, right, *rest):
        if rest:
            out = Or(left, right)
            for r in rest:
                out = Or(out, r)
            return out
        left, right = _expr(left, "Or"), _expr(right, "Or")
        if left is AlwaysTrue() or right is AlwaysTrue():
            return AlwaysTrue()
        if left is AlwaysFalse():
            return right
        if right is AlwaysFalse():
            return left
        obj = super().__new__(cls)
        obj.left, obj.right = left, right
        return obj

    def __repr__(self):
        return f"Or(left={self.left!r}, right={self.right!r})"

    def __eq__(self, other):
        return isinstance(other, Or) and self.left == other.left and self.right == other.right

    def __hash__(self):
        return hash(("Or", self.left, self.right))

    def __invert__(self):
        return And(~self.left, ~self.right)

    def __getnewargs__(self):
        return (self.left, self.right)

    def _json(self):
        return {"type": "or", "left": self.left._json(), "right": self.right._json()}


class Not(BooleanExpression):
    """The rows the child's negation matches (a null fails both)."""

    __slots__ = ("child",)

    def __new__(cls, child):
        child = _expr(child, "Not")
        if child is AlwaysTrue():
            return AlwaysFalse()
        if child is AlwaysFalse():
            return AlwaysTrue()
        if isinstance(child, Not):
            return child.child
        obj = super().__new__(cls)
        obj.child = child
        return obj

    def __repr__(self):
        return f"Not(child={self.child!r})"

    def __eq__(self, other):
        return isinstance(other, Not) and self.child == other.child

    def __hash__(self):
        return hash(("Not", self.child))

    def __invert__(self):
        return self.child

    def __getnewargs__(self):
        return (self.child,)

    def _json(self):
        return {"type": "not", "child": self.child._json()}


class UnboundPredicate(BooleanExpression):
    """A test of one column (its term)."""

    __slots__ = ("term",)
    _op = None  # the REST JSON expression type

    def __init__(self, term):
        self.term = _term(term)

    def __eq__(self, other):
        return type(self) is type(other) and self._key() == other._key()

    def __hash__(self):
        return hash((type(self).__name__,) + self._key())

    def _key(self):
        return (self.term,)


class UnaryPredicate(UnboundPredicate):
    __slots__ = ()

    def __repr__(self):
        return f"{type(self).__name__}(term={self.term!r})"

    def __getnewargs__(self):
        return (self.term,)

    def _json(self):
        return {"type": self._op, "term": self.term.name}


class IsNull(UnaryPredicate):
    """Rows whose value is null."""

    __slots__ = ()
    _op = "is-null"

    def __invert__(self):
        return NotNull(self.term)


class NotNull(UnaryPredicate):
    """Rows whose value is not null."""

    __slots__ = ()
    _op = "not-null"

    def __invert__(self):
        return IsNull(self.term)


class IsNaN(UnaryPredicate):
    """Rows whose float or double is NaN; on a column of another type no
    row (it binds to AlwaysFalse, as pyiceberg's does)."""

    __slots__ = ()
    _op = "is-nan"

    def __invert__(self):
        return NotNaN(self.term)


class NotNaN(UnaryPredicate):
    """Rows whose float or double is a number (not null, not NaN); on a
    column of another type every row, nulls too (it binds to AlwaysTrue,
    as pyiceberg's does)."""

    __slots__ = ()
    _op = "not-nan"

    def __invert__(self):
        return IsNaN(self.term)


class LiteralPredicate(UnboundPredicate):
    __slots__ = ("literal",)

    def __init__(self, term, literal):  # the keyword name pyiceberg uses
        super().__init__(term)
        self.literal = _to_literal(literal)

    def __repr__(self):
        return f"{type(self).__name__}(term={self.term!r}, literal={self.literal!r})"

    def _key(self):
        return (self.term, self.literal)

    def __getnewargs__(self):
        return (self.term, self.literal)

    def _json(self):
        return {"type": self._op, "term": self.term.name, "value": self.literal._json()}


class EqualTo(LiteralPredicate):
    """Rows whose value equals literal: EqualTo(term, literal)."""

    __slots__ = ()
    _op = "eq"

    def __invert__(self):
        return NotEqualTo(self.term, self.literal)


class NotEqualTo(LiteralPredicate):
    """Rows whose value is not null and differs from literal."""

    __slots__ = ()
    _op = "not-eq"

    def __invert__(self):
        return EqualTo(self.term, self.literal)


class LessThan(LiteralPredicate):
    """Rows whose value is below literal (NaN and null fail)."""

    __slots__ = ()
    _op = "lt"

    def __invert__(self):
        return GreaterThanOrEqual(self.term, self.literal)


class GreaterThanOrEqual(LiteralPredicate):
    """Rows whose value is literal or above (NaN and null fail)."""

    __slots__ = ()
    _op = "gt-eq"

    def __invert__(self):
        return LessThan(self.term, self.literal)


class GreaterThan(LiteralPredicate):
    """Rows whose value is above literal (NaN and null fail)."""

    __slots__ = ()
    _op = "gt"

    def __invert__(self):
        return LessThanOrEqual(self.term, self.literal)


class LessThanOrEqual(LiteralPredicate):
    """Rows whose value is literal or below (NaN and null fail)."""

    __slots__ = ()
    _op = "lt-eq"

    def __invert__(self):
        return GreaterThan(self.term, self.literal)


class _StartsWithBase(LiteralPredicate):
    __slots__ = ()

    def __init__(self, term, literal):
        super().__init__(term, literal)
        if not isinstance(self.literal, StringLiteral):
            raise TypeError(f"{type(self).__name__} takes a str prefix, not {self.literal!r}")


class StartsWith(_StartsWithBase):
    """Rows whose string begins with the str literal."""

    __slots__ = ()
    _op = "starts-with"

    def __invert__(self):
        return NotStartsWith(self.term, self.literal)


class NotStartsWith(_StartsWithBase):
    """Rows whose string is not null and does not begin with the str literal."""

    __slots__ = ()
    _op = "not-starts-with"

    def __invert__(self):
        return StartsWith(self.term, self.literal)


def _literal_set(literals, cls):
    if isinstance(literals, (str, bytes, Literal)) or not hasattr(literals, "__iter__"):
        raise TypeError(f"{cls} takes an iterable of literals, not {type(literals).__name__}")
    # A dict keeps the first-seen order: the JSON (and so the plan) is the
    # same from run to run.
    return tuple(dict.fromkeys(literal(v) for v in literals))


class SetPredicate(UnboundPredicate):
    """In and NotIn: built whole in __new__, which reads literals once (an
    iterator too) and may return a simpler expression instead."""

    __slots__ = ("literals", "_ordered")
    _one = _none = None  # what one literal and no literal make

    def __new__(cls, term, literals):
        ordered = _literal_set(literals, cls.__name__)
        if not ordered:
            return cls._none()
        if len(ordered) == 1:
            return cls._one(term, ordered[0])
        obj = super().__new__(cls)
        obj.term = _term(term)
        obj.literals = frozenset(ordered)
        obj._ordered = ordered
        return obj

    def __init__(self, term, literals):
        pass  # __new__ built it

    def __repr__(self):
        shown = ", ".join(sorted(repr(lit) for lit in self.literals))
        return f"{type(self).__name__}({self.term!r}, {{{shown}}})"

    def _key(self):
        return (self.term, self.literals)

    def __getnewargs__(self):
        return (self.term, self._ordered)

    def _json(self):
        return {"type": self._op, "term": self.term.name, "values": [lit._json() for lit in self._ordered]}


class In(SetPredicate):
    """Rows whose value is one of literals (one: EqualTo; none: AlwaysFalse)."""

    __slots__ = ()
    _op = "in"
    _one, _none = EqualTo, AlwaysFalse

    def __invert__(self):
        return NotIn(self.term, self._ordered)


class NotIn(SetPredicate):
    """Rows whose value is none of literals (one: NotEqualTo; none: AlwaysTrue)."""

    __slots__ = ()
    _op = "not-in"
    _one, _none = NotEqualTo, AlwaysTrue

    def __invert__(self):
        return In(self.term, self._ordered)


# ---------------------------------------------------------------- filters


def _filter(row_filter, what="row filter"):
    """row_filter as floe's calls take it: text (pyiceberg's row_filter
    syntax) and REST JSON dicts pass as they are, an expression of this
    module becomes its REST JSON dict, True and False every row and none.
    The one place every Python call taking a filter converts it; anything
    else is FloeError INVALID_ARGUMENT."""
    if isinstance(row_filter, (str, dict)):
        return row_filter
    if isinstance(row_filter, BooleanExpression):
        return row_filter._json()
    if type(row_filter).__module__.startswith("pyiceberg.expressions"):
        try:
            return from_pyiceberg(row_filter)._json()
        except (TypeError, ValueError) as e:
            raise FloeError(Status.INVALID_ARGUMENT, f"{what}: {e}") from None
    if isinstance(row_filter, bool):
        return {"type": "true" if row_filter else "false"}
    raise FloeError(Status.INVALID_ARGUMENT,
                    f"{what} must be text, a REST JSON dict or a floe.expressions expression, "
                    f"not {type(row_filter).__name__} {row_filter!r:.60}")



# pyiceberg's literal classes by name: their values are ours. A float
# column's FloatLiteral holds the double it was given; floe rounds it to the
# column's float as pyiceberg does. A fixed column's literal is its bytes.
_PYICEBERG_LITERALS = {
    "BooleanLiteral": BooleanLiteral, "LongLiteral": LongLiteral, "FloatLiteral": DoubleLiteral,
    "DoubleLiteral": DoubleLiteral, "StringLiteral": StringLiteral, "DecimalLiteral": DecimalLiteral,
    "DateLiteral": DateLiteral, "TimeLiteral": TimeLiteral, "TimestampLiteral": TimestampLiteral,
    "UUIDLiteral": UUIDLiteral, "BinaryLiteral": BinaryLiteral, "FixedLiteral": BinaryLiteral,
}


def from_pyiceberg(expr):
    """The floe expression equal to an unbound expression of pyiceberg's
    own classes (pyiceberg.expressions.EqualTo("id", 5), what
    pyiceberg.expressions.parser.parse returns, …), so code that still
    builds those runs unchanged; every call taking a filter converts them
    itself. Bound expressions have no column name and are refused
    (TypeError), as are classes floe does not know."""
    name = type(expr).__name__
    if name in ("AlwaysTrue", "AlwaysFalse"):
        return globals()[name]()
    if name in ("And", "Or"):
        return globals()[name](from_pyiceberg(expr.left), from_pyiceberg(expr.right))
    if name == "Not":
        return Not(from_pyiceberg(expr.child))
    cls = globals().get(name)
    if not (isinstance(cls, type) and issubclass(cls, UnboundPredicate)) or type(expr.term).__name__ != "Reference":
        raise TypeError(f"cannot convert pyiceberg's {name} (only unbound expressions of named columns)")
    term = Reference(expr.term.name)

    def lit(value):
        kind = _PYICEBERG_LITERALS.get(type(value).__name__)
        if kind is None:
            raise TypeError(f"cannot convert pyiceberg's {type(value).__name__} in {name}")
        return kind(value.value)

    if issubclass(cls, UnaryPredicate):
        return cls(term)
    if issubclass(cls, SetPredicate):
        return cls(term, [lit(v) for v in expr.literals])
    return cls(term, lit(expr.literal))
