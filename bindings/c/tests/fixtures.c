/* The fixture tables of testdata/fixtures (tables.json: directory and the
 * prefixes to map; INDEX.md: the row counts other engines' tests expect). */
#include <stdio.h>
#include <string.h>

#include "harness.h"

char fixtures_root[4096];

#define HDFS "hdfs://localhost:20500"
#define ICE "/test-warehouse/iceberg_test/hadoop_catalog/ice/"

const struct fixture fixtures[] = {
    {"impala_iceberg_v3_deletion_vectors", "impala_iceberg_v3_deletion_vectors", "",
     {HDFS "/test-warehouse/iceberg_v3_deletion_vectors", NULL}, 3, 3},
    {"impala_iceberg_v3_row_lineage", "impala_iceberg_v3_row_lineage", "",
     {HDFS "/test-warehouse/iceberg_v3_row_lineage", NULL}, 3, 3},
    {"impala_iceberg_v3_all_types", "impala_iceberg_v3_all_types", "",
     {HDFS "/test-warehouse/iceberg_v3_all_types", NULL}, 3, 2},
    {"impala_test_default_part", "impala_test_default_part", "",
     {HDFS "/test-warehouse/test_default_part", NULL}, 3, 5},
    {"impala_iceberg_v2_delete_pos_and_multi_eq_ids", "impala_iceberg_v2_delete_pos_and_multi_eq_ids", "",
     {ICE "iceberg_v2_delete_pos_and_multi_eq_ids", HDFS ICE "iceberg_v2_delete_pos_and_multi_eq_ids"}, 2, 4},
    {"impala_iceberg_v2_delete_equality_partitioned", "impala_iceberg_v2_delete_equality_partitioned", "",
     {ICE "iceberg_v2_delete_equality_partitioned", HDFS ICE "iceberg_v2_delete_equality_partitioned"}, 2, 6},
    {"impala_iceberg_v2_equality_delete_schema_evolution", "impala_iceberg_v2_equality_delete_schema_evolution", "",
     {ICE "iceberg_v2_equality_delete_schema_evolution", HDFS ICE "iceberg_v2_equality_delete_schema_evolution"}, 2, 3},
    {"impala_iceberg_v2_partitioned_position_deletes", "impala_iceberg_v2_partitioned_position_deletes", "",
     {ICE "iceberg_v2_partitioned_position_deletes", HDFS ICE "iceberg_v2_partitioned_position_deletes"}, 2, 10},
    {"impala_iceberg_v2_positional_not_all_data_files_have_delete_files",
     "impala_iceberg_v2_positional_not_all_data_files_have_delete_files", "",
     {ICE "iceberg_v2_positional_not_all_data_files_have_delete_files",
      HDFS ICE "iceberg_v2_positional_not_all_data_files_have_delete_files"}, 2, 6},
    {"impala_iceberg_partitioned", "impala_iceberg_partitioned", "",
     {"/test-warehouse/iceberg_test/iceberg_partitioned", HDFS "/test-warehouse/iceberg_test/iceberg_partitioned"}, 1, 20},
    {"impala_iceberg_timestamptz_part", "impala_iceberg_timestamptz_part", "",
     {ICE "iceberg_timestamptz_part", HDFS ICE "iceberg_timestamptz_part"}, 1, 7},
    {"impala_iceberg_migrated_complex_test", "impala_iceberg_migrated_complex_test", "",
     {"/test-warehouse/iceberg_migrated_complex_test", HDFS "/test-warehouse/iceberg_migrated_complex_test"}, 1, 1},
    {"duckdb_equality_deletes/mytable", "duckdb_equality_deletes", "warehouse/mydb/mytable",
     {"data/persistent/equality_deletes", NULL}, 2, 2},
    {"duckdb_equality_deletes/mytable_partitioned", "duckdb_equality_deletes", "warehouse/mydb/mytable_partitioned",
     {"data/persistent/equality_deletes", NULL}, 2, 3},
    {"duckdb_lineitem_iceberg", "duckdb_lineitem_iceberg", "", {"lineitem_iceberg", "./lineitem_iceberg"}, 2, 51793},
    {"duckdb_uuid", "duckdb_uuid", "", {"data/persistent/uuid", NULL}, 2, 10},
};

const int fixture_count = (int)(sizeof fixtures / sizeof fixtures[0]);

const struct fixture* fixture_named(const char* name) {
  for (int i = 0; i < fixture_count; i++)
    if (strcmp(fixtures[i].name, name) == 0) return &fixtures[i];
  return NULL;
}

void fixture_location(const struct fixture* f, char* buf, size_t n) {
  if (f->table[0] != '\0')
    snprintf(buf, n, "%s/%s/%s", fixtures_root, f->dir, f->table);
  else
    snprintf(buf, n, "%s/%s", fixtures_root, f->dir);
}

void fixture_options(const struct fixture* f, char* buf, size_t n) {
  size_t used = (size_t)snprintf(buf, n, "{\"location_map\": {");
  for (int i = 0; i < 2 && f->prefixes[i] != NULL; i++)
    used += (size_t)snprintf(buf + used, n - used, "%s\"%s\": \"%s/%s\"", i ? ", " : "", f->prefixes[i],
                             fixtures_root, f->dir);
  snprintf(buf + used, n - used, "}}");
}

floe_table* open_fixture(const char* name) {
  const struct fixture* f = fixture_named(name);
  if (f == NULL) {
    CHECK(!"unknown fixture");
    return NULL;
  }
  char location[8192], options[16384];
  fixture_location(f, location, sizeof location);
  fixture_options(f, options, sizeof options);
  floe_table* t = NULL;
  floe_status rc = floe_table_open(location, options, &t);
  if (rc != FLOE_OK) {
    atomic_fetch_add(&test_failures, 1);
    fprintf(stderr, "open %s: %s: %s\n", name, floe_status_name(rc), floe_last_error());
    return NULL;
  }
  return t;
}
