"""Partition and sort transforms with pyiceberg's names
(pyiceberg.transforms): IdentityTransform(), BucketTransform(16),
TruncateTransform(4), YearTransform(), MonthTransform(), DayTransform(),
HourTransform(), VoidTransform().

Each is also its Iceberg spelling as a string (str(BucketTransform(16))
is "bucket[16]", and BucketTransform(16) == "bucket[16]"), so a transform
goes wherever floe took a transform name, and prints as pyiceberg's. floe
applies transforms in libfloe; these objects name them."""

import re

from .types import (BinaryType, DateType, DecimalType, FixedType, IntegerType, LongType, PrimitiveType, StringType,
                    TimestampNanoType, TimestampType, TimestamptzNanoType, TimestamptzType, TimeType, UUIDType)

_BUCKET = re.compile(r"^bucket\[\s*(\d+)\s*\]$")
_TRUNCATE = re.compile(r"^truncate\[\s*(\d+)\s*\]$")


class Transform(str):
    """The base of every transform: its value is the Iceberg spelling."""

    _name = ""
    _sources = ()

    def __new__(cls, *args):
        return str.__new__(cls, cls._spelling(*args))

    @classmethod
    def _spelling(cls):
        return cls._name

    def __str__(self):
        return str.__str__(self)

    def __format__(self, spec):
        return format(str(self), spec)

    def __repr__(self):
        return f"{type(self).__name__}()"

    def __reduce__(self):
        return (type(self), self.__getnewargs__())

    def __getnewargs__(self):
        return ()

    @property
    def root(self):
        return str.__str__(self)

    @property
    def dedup_name(self):
        return str(self)

    @property
    def preserves_order(self):
        return False

    def can_transform(self, source):
        return isinstance(source, self._sources)

    def result_type(self, source):
        return source

    def satisfies_order_of(self, other):
        return self == other

    def model_dump(self, **_kwargs):
        return str(self)


_TIMES = (TimestampType, TimestamptzType, TimestampNanoType, TimestamptzNanoType)


class IdentityTransform(Transform):
    """The source value itself."""

    _name = "identity"

    @property
    def preserves_order(self):
        return True

    def can_transform(self, source):
        return isinstance(source, PrimitiveType)


class VoidTransform(Transform):
    """Always null: how a v1 table drops a partition field."""

    _name = "void"

    def can_transform(self, source):
        return True


class BucketTransform(Transform):
    """A 32-bit hash of the value modulo num_buckets."""

    _sources = (IntegerType, LongType, DecimalType, DateType, TimeType, StringType, UUIDType, FixedType,
                BinaryType) + _TIMES

    def __new__(cls, num_buckets):
        if int(num_buckets) <= 0:
            raise ValueError(f"the number of buckets must be positive, not {num_buckets}")
        t = str.__new__(cls, f"bucket[{int(num_buckets)}]")
        t.num_buckets = int(num_buckets)
        return t

    def __repr__(self):
        return f"BucketTransform(num_buckets={self.num_buckets})"

    def __getnewargs__(self):
        return (self.num_buckets,)

    def result_type(self, source):
        return IntegerType()


class TruncateTransform(Transform):
    """The value truncated to width (strings: code points)."""

    _sources = (IntegerType, LongType, StringType, BinaryType, DecimalType)

    def __new__(cls, width):
        if int(width) <= 0:
            raise ValueError(f"the truncate width must be positive, not {width}")
        t = str.__new__(cls, f"truncate[{int(width)}]")
        t.width = int(width)
        return t

    def __repr__(self):
        return f"TruncateTransform(width={self.width})"

    def __getnewargs__(self):
        return (self.width,)

    @property
    def preserves_order(self):
        return True


class _TimeTransform(Transform):
    _sources = (DateType,) + _TIMES

    @property
    def preserves_order(self):
        return True

    def result_type(self, source):
        return IntegerType()


class YearTransform(_TimeTransform):
    """Years from 1970."""

    _name = "year"


class MonthTransform(_TimeTransform):
    """Months from 1970-01."""

    _name = "month"


class DayTransform(_TimeTransform):
    """Days from 1970-01-01 (a date, as pyiceberg shows it)."""

    _name = "day"

    def result_type(self, source):
        return DateType()


class HourTransform(_TimeTransform):
    """Hours from 1970-01-01 00:00."""

    _name = "hour"
    _sources = _TIMES


class UnknownTransform(Transform):
    """A transform floe does not know, kept by its spelling so tables that
    use one still read and round-trip."""

    def __new__(cls, transform):
        t = str.__new__(cls, str(transform))
        t.transform = str(transform)
        return t

    def __repr__(self):
        return f"UnknownTransform(transform={self.transform!r})"

    def __getnewargs__(self):
        return (self.transform,)

    def result_type(self, source):
        return StringType()


_BY_NAME = {c._name: c for c in (IdentityTransform, VoidTransform, YearTransform, MonthTransform, DayTransform,
                                  HourTransform)}


def parse_transform(v):
    """A transform from its Iceberg spelling ("day", "bucket[16]"), or v
    when it is one already (pyiceberg's transforms by their spelling)."""
    if isinstance(v, Transform):
        return v
    if v is None:
        return IdentityTransform()
    s = str(v).strip()
    if s in _BY_NAME:
        return _BY_NAME[s]()
    m = _BUCKET.match(s)
    if m:
        return BucketTransform(int(m.group(1)))
    m = _TRUNCATE.match(s)
    if m:
        return TruncateTransform(int(m.group(1)))
    return UnknownTransform(s)


__all__ = ["BucketTransform", "DayTransform", "HourTransform", "IdentityTransform", "MonthTransform", "Transform",
           "TruncateTransform", "UnknownTransform", "VoidTransform", "YearTransform", "parse_transform"]


def _pop_source_id(data, source_id):
    """The source column's id of a partition or sort field: given
    positionally, as JSON's "source-id", or as a one-element "source-ids"
    (v3's form; transforms of several columns are not supported)."""
    source_id = data.pop("source-id", source_id)
    if source_id is None and "source-ids" in data:
        ids = data.pop("source-ids")
        if not ids:
            raise ValueError("Empty source-ids is not allowed")
        if len(ids) > 1:
            raise ValueError("Multi argument transforms are not yet supported")
        source_id = ids[0]
    data.pop("source-ids", None)
    return source_id
