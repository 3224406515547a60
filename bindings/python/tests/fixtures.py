"""The fixture tables of testdata/fixtures, with their location maps, read
from tables.json the way internal/fixtures/fixtures.go reads it, and the row
counts INDEX.md quotes from each table's engine tests."""

import json
import os

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
FIXTURES = os.path.join(REPO, "testdata", "fixtures")

# Rows at the current snapshot, deletes applied (INDEX.md).
EXPECTED_ROWS = {
    "impala_iceberg_v3_deletion_vectors": 3,
    "impala_iceberg_v3_row_lineage": 3,
    "impala_iceberg_v3_all_types": 2,
    "impala_test_default_part": 5,
    "impala_iceberg_v2_delete_pos_and_multi_eq_ids": 4,
    "impala_iceberg_v2_delete_equality_partitioned": 6,
    "impala_iceberg_v2_equality_delete_schema_evolution": 3,
    "impala_iceberg_v2_partitioned_position_deletes": 10,
    "impala_iceberg_v2_positional_not_all_data_files_have_delete_files": 6,
    "impala_iceberg_partitioned": 20,
    "impala_iceberg_timestamptz_part": 7,
    "impala_iceberg_migrated_complex_test": 1,
    "duckdb_equality_deletes/mytable": 2,
    "duckdb_equality_deletes/mytable_partitioned": 3,
    "duckdb_lineitem_iceberg": 51793,
    "duckdb_uuid": 10,
}


class Fixture:
    def __init__(self, name, location, metadata, format_version, location_map):
        self.name = name
        self.location = location
        self.metadata = metadata
        self.format_version = format_version
        self.location_map = location_map

    def open(self):
        import floe

        return floe.Table.open(self.location, location_map=self.location_map)


def all_fixtures():
    with open(os.path.join(FIXTURES, "tables.json")) as f:
        entries = json.load(f)
    out = []
    for e in entries:
        fixture_dir = os.path.join(FIXTURES, e["name"])
        location_map = {p: fixture_dir for p in e["path_prefixes_to_map_to_table_dir"]}
        for md in e["current_metadata"].split(" + "):
            md = md.strip()
            rel = os.path.dirname(os.path.dirname(md))  # "" or "warehouse/mydb/mytable"
            name = e["name"] + ("/" + os.path.basename(rel) if rel else "")
            out.append(Fixture(name, os.path.join(fixture_dir, rel) if rel else fixture_dir,
                               os.path.join(fixture_dir, md), e["format_version"], location_map))
    return out


def fixture(name):
    for f in all_fixtures():
        if f.name == name:
            return f
    raise KeyError(name)
