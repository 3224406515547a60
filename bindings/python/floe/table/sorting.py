"""Sort orders with pyiceberg's names (pyiceberg.table.sorting):

    from floe.table.sorting import SortOrder, SortField, SortDirection, NullOrder
    order = SortOrder(SortField(source_id=2, transform=IdentityTransform(),
                                direction=SortDirection.DESC, null_order=NullOrder.NULLS_LAST))
    catalog.create_table("db.t", schema, sort_order=order)

Table.sort_order() returns one. SortDirection and NullOrder are also their
Iceberg values as strings (SortDirection.ASC == "asc"), as floe's sort
fields were."""

import enum

from ..transforms import IdentityTransform, _pop_source_id, parse_transform
from ..types import _extra, _Frozen, _JsonModel


class SortDirection(str, enum.Enum):
    ASC = "asc"
    DESC = "desc"

    def __str__(self):
        return self.name

    def __repr__(self):
        return f"SortDirection.{self.name}"

    def __format__(self, spec):
        return format(str(self), spec)


class NullOrder(str, enum.Enum):
    NULLS_FIRST = "nulls-first"
    NULLS_LAST = "nulls-last"

    def __str__(self):
        return self.name.replace("_", " ")

    def __repr__(self):
        return f"NullOrder.{self.name}"

    def __format__(self, spec):
        return format(str(self), spec)


class _Flag(int):
    """A bool that is also callable: pyiceberg's SortOrder.is_unsorted is
    a property, floe's was a method; both spellings answer."""

    def __new__(cls, value):
        return int.__new__(cls, bool(value))

    def __call__(self):
        return bool(self)

    def __repr__(self):
        return repr(bool(self))

    __str__ = __repr__


def _enum(cls, v, what):
    if isinstance(v, cls):
        return v
    value = getattr(v, "value", v)  # pyiceberg's enums
    try:
        return cls(str(value).lower())
    except ValueError:
        raise ValueError(f"{what} is one of {', '.join(m.value for m in cls)}, not {v!r}") from None


class SortField(_Frozen):
    """One sort key: SortField(source_id, transform=IdentityTransform(),
    direction=SortDirection.ASC, null_order=nulls first for ascending,
    nulls last for descending)."""

    def __init__(self, source_id=None, transform=None, direction=None, null_order=None, **data):
        source_id = _pop_source_id(data, source_id)
        transform = data.pop("transform", transform)
        direction = data.pop("direction", direction)
        null_order = data.pop("null-order", null_order)
        _extra("SortField", data)
        if source_id is None:
            raise ValueError("a SortField needs a source_id")
        direction = SortDirection.ASC if not direction else _enum(SortDirection, direction, "direction")
        if not null_order:
            null_order = NullOrder.NULLS_FIRST if direction == SortDirection.ASC else NullOrder.NULLS_LAST
        self._set(source_id=int(source_id), transform=parse_transform(transform), direction=direction,
                  null_order=_enum(NullOrder, null_order, "null_order"))

    def model_dump(self, **_kwargs):
        return {"source-id": self.source_id, "transform": str(self.transform), "direction": self.direction.value,
                "null-order": self.null_order.value}

    def __eq__(self, other):
        return isinstance(other, SortField) and self.model_dump() == other.model_dump()

    def __hash__(self):
        return hash((self.source_id, self.transform, self.direction, self.null_order))

    def __str__(self):
        if isinstance(self.transform, IdentityTransform):
            return f"{self.source_id} {self.direction} {self.null_order}"
        return f"{self.transform}({self.source_id}) {self.direction} {self.null_order}"

    def __repr__(self):
        return (f"SortField(source_id={self.source_id}, transform={self.transform!r}, "
                f"direction={self.direction!r}, null_order={self.null_order!r})")


INITIAL_SORT_ORDER_ID = 1
UNSORTED_SORT_ORDER_ID = 0


class SortOrder(_JsonModel, _Frozen):
    """A sort order: SortOrder(*fields, order_id=1)."""

    _floe_json = True

    def __init__(self, *fields, **data):
        if len(fields) == 1 and isinstance(fields[0], (list, tuple)):
            fields = tuple(fields[0])
        order_id = data.pop("order-id", data.pop("order_id", INITIAL_SORT_ORDER_ID))
        fields = fields or data.pop("fields", ())
        _extra("SortOrder", data)
        self._set(order_id=int(order_id), fields=[f if isinstance(f, SortField) else SortField(**f) for f in fields])

    def model_dump(self, **_kwargs):
        return {"order-id": self.order_id, "fields": [f.model_dump() for f in self.fields]}

    @property
    def is_unsorted(self):
        """True when the order has no fields (also callable, as floe's
        is_unsorted() was)."""
        return _Flag(not self.fields)

    def __eq__(self, other):
        return isinstance(other, SortOrder) and (self.order_id, self.fields) == (other.order_id, other.fields)

    def __hash__(self):
        return hash((self.order_id, tuple(self.fields)))

    def __str__(self):
        if not self.fields:
            return "[]"
        return "[\n  " + "\n  ".join(str(f) for f in self.fields) + "\n]"

    def __repr__(self):
        fields = "".join(repr(f) + ", " for f in self.fields)
        return f"SortOrder({fields}order_id={self.order_id})"


UNSORTED_SORT_ORDER = SortOrder(order_id=UNSORTED_SORT_ORDER_ID)

__all__ = ["INITIAL_SORT_ORDER_ID", "NullOrder", "SortDirection", "SortField", "SortOrder", "UNSORTED_SORT_ORDER",
           "UNSORTED_SORT_ORDER_ID"]
