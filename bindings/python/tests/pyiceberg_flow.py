"""pyiceberg's "getting started" flow, written as a pyiceberg user writes
it: only the package name in the imports differs (pyiceberg.catalog is
floe.catalog, pyiceberg.schema floe.schema, ...). The catalog comes from
the user's configuration (.pyiceberg.yaml or PYICEBERG_CATALOG__DEFAULT__*
variables), as pyiceberg finds it. test_pyiceberg_flow.py runs this file
against the built library and, in installed_package.sh, against the
installed package in a fresh venv. It prints one line and exits 0 when
every step gave what pyiceberg gives."""

import datetime

import pandas as pd

from floe.catalog import load_catalog
from floe.expressions import And, EqualTo, GreaterThanOrEqual, LessThan
from floe.partitioning import PartitionField, PartitionSpec
from floe.schema import Schema
from floe.table.sorting import NullOrder, SortDirection, SortField, SortOrder
from floe.transforms import DayTransform, IdentityTransform
from floe.types import DoubleType, LongType, NestedField, StringType, TimestampType

catalog = load_catalog("default")
catalog.create_namespace("docs_example")

schema = Schema(
    NestedField(field_id=1, name="datetime", field_type=TimestampType(), required=True),
    NestedField(field_id=2, name="symbol", field_type=StringType(), required=True),
    NestedField(field_id=3, name="bid", field_type=DoubleType(), required=False),
    NestedField(field_id=4, name="ask", field_type=DoubleType(), required=False),
    NestedField(field_id=5, name="volume", field_type=LongType(), required=False),
)
partition_spec = PartitionSpec(
    PartitionField(source_id=1, field_id=1000, transform=DayTransform(), name="datetime_day")
)
sort_order = SortOrder(
    SortField(source_id=2, transform=IdentityTransform()),
    SortField(source_id=1, direction=SortDirection.DESC, null_order=NullOrder.NULLS_LAST),
)
table = catalog.create_table(
    identifier="docs_example.bids",
    schema=schema,
    partition_spec=partition_spec,
    sort_order=sort_order,
)
assert table.schema() == schema, table.schema()
assert table.spec() == partition_spec, table.spec()
assert table.sort_order().fields == sort_order.fields, table.sort_order()
assert ("docs_example", "bids") in catalog.list_tables("docs_example")

day1 = datetime.datetime(2026, 12, 1, 9, 30)
day2 = datetime.datetime(2026, 12, 2, 9, 30)
df = pd.DataFrame({
    "datetime": [day1, day1, day2],
    "symbol": ["AAPL", "MSFT", "AAPL"],
    "bid": [101.5, 420.0, 99.0],
    "ask": [101.75, 420.5, None],
    "volume": [100, 200, 300],
})
# pyiceberg appends a pyarrow table (pa.Table.from_pandas(df)); floe takes
# the pandas DataFrame itself, and a pyarrow table too.
table.append(df)
first_snapshot = table.current_snapshot().snapshot_id

table.append(pd.DataFrame({
    "datetime": [day2],
    "symbol": ["MSFT"],
    "bid": [421.0],
    "ask": [421.5],
    "volume": [50],
}))
assert len(table.scan().to_pandas()) == 4

# Scan with an expression.
aapl = table.scan(
    row_filter=And(EqualTo("symbol", "AAPL"), GreaterThanOrEqual("bid", 100.0)),
    selected_fields=("symbol", "bid"),
).to_pandas()
assert aapl.to_dict("records") == [{"symbol": "AAPL", "bid": 101.5}], aapl

# Time travel.
before = table.scan(snapshot_id=first_snapshot).to_pandas()
assert len(before) == 3, before
assert len(table.snapshots()) == 2

# Schema evolution.
with table.update_schema() as update:
    update.add_column("venue", StringType(), doc="where it traded")
assert str(table.schema().find_field("venue")) == "6: venue: optional string (where it traded)"
table.append(pd.DataFrame({
    "datetime": [day2], "symbol": ["AAPL"], "bid": [98.0], "ask": [98.5], "volume": [10], "venue": ["XNAS"],
}))
now = table.scan(row_filter=EqualTo("venue", "XNAS")).to_pandas()
assert now["symbol"].tolist() == ["AAPL"], now
assert table.scan().to_pandas()["venue"].isna().sum() == 4

# Load it again, and inspect it.
table = catalog.load_table("docs_example.bids")
snapshots = table.inspect.snapshots().to_pandas()
assert len(snapshots) == 3, snapshots
assert snapshots["operation"].tolist() == ["append", "append", "append"], snapshots
files = table.inspect.files().to_pandas()
assert files["record_count"].sum() == 5, files
assert len(table.history()) == 3
assert table.name() == ("docs_example", "bids")
assert table.refs()["main"].snapshot_id == table.current_snapshot().snapshot_id

# A scan refined step by step, and time travel by timestamp.
scan = table.scan().filter(EqualTo("symbol", "AAPL")).select("symbol", "bid")
assert sorted(scan.to_pandas()["bid"].tolist()) == [98.0, 99.0, 101.5], scan.to_pandas()
assert [f.name for f in scan.projection().fields] == ["symbol", "bid"]
first = table.snapshot_by_id(first_snapshot)
assert table.snapshot_as_of_timestamp(first.timestamp_ms).snapshot_id == first_snapshot
assert len(table.scan().use_ref("main").to_pandas()) == 5

# Deletes and overwrites.
table.delete(delete_filter=EqualTo("symbol", "MSFT"), snapshot_properties={"reason": "delisted"})
assert table.scan().to_pandas()["symbol"].tolist() == ["AAPL"] * 3
assert table.current_snapshot().summary["reason"] == "delisted"
table.overwrite(df.assign(venue="XNYS"))
assert sorted(table.scan().to_pandas()["volume"].tolist()) == [100, 200, 300]
table.overwrite(
    pd.DataFrame({"datetime": [day1], "symbol": ["AAPL"], "bid": [100.0], "ask": [100.5], "volume": [1], "venue": ["XNAS"]}),
    overwrite_filter=And(EqualTo("symbol", "AAPL"), LessThan("datetime", "2026-12-02T00:00:00")),
)
rows = table.scan().to_pandas().sort_values("volume")
assert rows["volume"].tolist() == [1, 200, 300], rows

# Dynamic partition overwrite replaces the partitions its rows land in
# (pyiceberg does it for identity partitions).
quotes = catalog.create_table(
    "docs_example.quotes",
    schema=schema,
    partition_spec=PartitionSpec(
        PartitionField(source_id=2, field_id=1000, transform=IdentityTransform(), name="symbol")
    ),
)
quotes.append(df)
quotes.dynamic_partition_overwrite(pd.DataFrame({
    "datetime": [day2], "symbol": ["MSFT"], "bid": [430.0], "ask": [430.5], "volume": [7],
}))
rows = quotes.scan().to_pandas().sort_values("volume")
assert list(zip(rows["symbol"], rows["volume"])) == [("MSFT", 7), ("AAPL", 100), ("AAPL", 300)], rows

print(f"pyiceberg flow: ok ({len(snapshots)} snapshots, {len(files)} data files; then filter, select, "
      f"delete, overwrite and dynamic partition overwrite)")
