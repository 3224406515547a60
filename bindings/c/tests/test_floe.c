/* Tests of libfloe through include/floe.h alone.
 *
 *   test_floe FIXTURES_DIR GROUP...
 *
 * Groups: basics errors threads streams threads_stream filters
 * threads_filter (or "all"; "all" without the threads* groups, "single", is
 * what the valgrind run uses). */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow_read.h"
#include "floe.h"
#include "harness.h"
#include "test_filters.h"
#include "test_inspect.h"
#include "test_thread_hop.h"
#include "test_host_io.h"
#include "test_maintain.h"
#include "test_transaction.h"
#include "test_catalog_transaction.h"
#include "test_write.h"

atomic_int test_failures;

/* ---- basics: open, metadata, plan, schema, tasks ---------------------- */

/* The value stored under key in Arrow field metadata, or NULL. */
static const char* metadata_value(const char* metadata, const char* key, char* out, size_t n) {
  if (metadata == NULL) return NULL;
  int32_t pairs, len;
  const char* p = metadata;
  memcpy(&pairs, p, 4);
  p += 4;
  for (int32_t i = 0; i < pairs; i++) {
    memcpy(&len, p, 4);
    p += 4;
    int match = (size_t)len == strlen(key) && memcmp(p, key, (size_t)len) == 0;
    p += len;
    memcpy(&len, p, 4);
    p += 4;
    if (match && (size_t)len < n) {
      memcpy(out, p, (size_t)len);
      out[len] = '\0';
      return out;
    }
    p += len;
  }
  return NULL;
}

static void test_version(void) {
  CHECK_STR(floe_version(), FLOE_VERSION_STRING);
  CHECK_STR(floe_status_name(FLOE_NOT_FOUND), "FLOE_NOT_FOUND");
  CHECK_STR(floe_status_name(FLOE_COMMIT_STATE_UNKNOWN), "FLOE_COMMIT_STATE_UNKNOWN");
  CHECK_STR(floe_status_name(FLOE_UNAUTHORIZED), "FLOE_UNAUTHORIZED");
  CHECK_STR(floe_status_name(FLOE_CANCELLED), "FLOE_CANCELLED");
  CHECK_STR(floe_status_name(FLOE_TIMEOUT), "FLOE_TIMEOUT");
  CHECK_STR(floe_status_name(1234), "FLOE_UNKNOWN_STATUS");
  CHECK_STR(floe_last_error(), "");
}

static void test_open_every_fixture(void) {
  for (int i = 0; i < fixture_count; i++) {
    const struct fixture* f = &fixtures[i];
    floe_table* t = open_fixture(f->name);
    if (t == NULL) continue;
    char* json = NULL;
    CHECK_OK(floe_table_metadata_json(t, &json));
    char want[64];
    snprintf(want, sizeof want, "\"format-version\":%d", f->format_version);
    if (json == NULL || strstr(json, want) == NULL) {
      atomic_fetch_add(&test_failures, 1);
      fprintf(stderr, "%s: metadata JSON lacks %s\n", f->name, want);
    }
    floe_string_free(json);

    char* where = NULL;
    CHECK_OK(floe_table_metadata_location(t, &where));
    CHECK(where != NULL && strstr(where, ".metadata.json") != NULL);
    floe_string_free(where);

    floe_scan* s = NULL;
    CHECK_OK(floe_scan_open(t, "{}", &s));
    int64_t tasks = -1;
    CHECK_OK(floe_scan_plan(s, &tasks));
    CHECK(tasks > 0);
    for (int64_t k = 0; k < tasks; k++) {
      uint8_t* bytes = NULL;
      size_t len = 0;
      CHECK_OK(floe_scan_task(s, k, &bytes, &len));
      CHECK(bytes != NULL && len > 2 && bytes[0] == '{');
      floe_bytes_free(bytes);
    }
    struct ArrowSchema schema;
    CHECK_OK(floe_scan_schema(s, &schema));
    CHECK_STR(schema.format, "+s");
    CHECK(schema.n_children > 0);
    schema.release(&schema);
    CHECK_OK(floe_scan_free(s));
    CHECK_OK(floe_table_free(t));
  }
}

/* Data-file counts: lineitem's current snapshot has one file, uuid two,
 * iceberg_partitioned twenty one-row files, the DV table five (INDEX.md).
 * Every file is far smaller than the default split size, so the files are
 * packed into one task; at a split size of the open-file cost (4 MiB) each
 * small file is a task of its own. */
#define ONE_FILE_PER_TASK "{\"split_size\": 4194304}"
static void test_plan_counts(void) {
  static const struct {
    const char* name;
    const char* scan;
    int64_t tasks;
  } cases[] = {
      {"duckdb_lineitem_iceberg", "{}", 1},
      {"duckdb_lineitem_iceberg", "{\"snapshot_id\": 7817332053627255703, \"split_size\": 4194304}", 1},
      {"duckdb_uuid", NULL, 1},
      {"duckdb_uuid", ONE_FILE_PER_TASK, 2},
      {"impala_iceberg_partitioned", "{}", 1},
      {"impala_iceberg_partitioned", ONE_FILE_PER_TASK, 20},
      {"impala_iceberg_partitioned", "{\"split_size\": 41943040}", 2},
      {"impala_iceberg_v3_deletion_vectors", ONE_FILE_PER_TASK, 5},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    floe_table* t = open_fixture(cases[i].name);
    if (t == NULL) continue;
    floe_scan* s = NULL;
    CHECK_OK(floe_scan_open(t, cases[i].scan, &s));
    int64_t tasks = -1;
    CHECK_OK(floe_scan_plan(s, &tasks));
    CHECK_EQ_I64(tasks, cases[i].tasks);
    floe_scan_free(s);
    floe_table_free(t);
  }
}

static void test_schema(void) {
  floe_table* t = open_fixture("duckdb_lineitem_iceberg");
  if (t == NULL) return;
  floe_scan* s = NULL;
  CHECK_OK(floe_scan_open(t, NULL, &s));
  struct ArrowSchema schema;
  CHECK_OK(floe_scan_schema(s, &schema));
  CHECK_EQ_I64(schema.n_children, 16);
  int q = schema_field(&schema, "l_quantity"), d = schema_field(&schema, "l_shipdate");
  int k = schema_field(&schema, "l_orderkey"), c = schema_field(&schema, "l_comment");
  CHECK(q >= 0 && d >= 0 && k >= 0 && c >= 0);
  if (q >= 0 && d >= 0 && k >= 0 && c >= 0) {
    CHECK_STR(schema.children[q]->format, "d:15,2");
    CHECK_STR(schema.children[d]->format, "tdD");
    CHECK_STR(schema.children[k]->format, "l");
    CHECK_STR(schema.children[c]->format, "u");
    char id[16];
    CHECK_STR(metadata_value(schema.children[k]->metadata, "PARQUET:field_id", id, sizeof id), "1");
    CHECK_STR(metadata_value(schema.children[c]->metadata, "PARQUET:field_id", id, sizeof id), "16");
  }
  schema.release(&schema);
  floe_scan_free(s);

  /* Projection keeps the order asked for. */
  CHECK_OK(floe_scan_open(t, "{\"columns\": [\"l_shipdate\", \"l_orderkey\"]}", &s));
  CHECK_OK(floe_scan_schema(s, &schema));
  CHECK_EQ_I64(schema.n_children, 2);
  if (schema.n_children == 2) {
    CHECK_STR(schema.children[0]->name, "l_shipdate");
    CHECK_STR(schema.children[1]->name, "l_orderkey");
  }
  schema.release(&schema);
  floe_scan_free(s);
  floe_table_free(t);

  t = open_fixture("duckdb_uuid");
  if (t == NULL) return;
  CHECK_OK(floe_scan_open(t, NULL, &s));
  CHECK_OK(floe_scan_schema(s, &schema));
  CHECK_EQ_I64(schema.n_children, 1);
  CHECK_STR(schema.children[0]->format, "w:16");
  CHECK((schema.children[0]->flags & ARROW_FLAG_NULLABLE) == 0); /* a required column */
  schema.release(&schema);
  floe_scan_free(s);
  floe_table_free(t);
}

static void test_metadata_file_and_dataset_name(void) {
  /* A metadata file opened directly. */
  const struct fixture* f = fixture_named("duckdb_uuid");
  char location[8192], options[16384];
  snprintf(location, sizeof location, "%s/%s/metadata/00001-43fda1f4-1c96-4376-ad16-91beb71d0759.metadata.json",
           fixtures_root, f->dir);
  fixture_options(f, options, sizeof options);
  floe_table* t = NULL;
  CHECK_OK(floe_table_open(location, options, &t));
  floe_table_free(t);

  /* A dataset name under a warehouse: duckdb_equality_deletes holds
   * warehouse/mydb/mytable. */
  f = fixture_named("duckdb_equality_deletes/mytable");
  char json[16384];
  snprintf(json, sizeof json,
           "{\"warehouse\": \"%s/%s/warehouse\", \"location_map\": {\"%s\": \"%s/%s\"}}", fixtures_root,
           f->dir, f->prefixes[0], fixtures_root, f->dir);
  t = NULL;
  CHECK_OK(floe_table_open("mydb.mytable", json, &t));
  floe_table_free(t);
}

/* ---- errors ----------------------------------------------------------- */

static void check_error_mentions(const char* what) {
  const char* msg = floe_last_error();
  if (msg == NULL || strstr(msg, what) == NULL) {
    atomic_fetch_add(&test_failures, 1);
    fprintf(stderr, "last error \"%s\" does not mention \"%s\"\n", msg ? msg : "(null)", what);
  }
}

/* floe_binary_dictionary on a small utf8 array: codes in the order values
 * first appear, the empty value one of them; a bound below the distinct
 * count gives up; bad offsets and pointers are refused. The floe_py_*
 * functions need CPython: here, outside it, they make nothing. */
static void test_binary_dictionary(void) {
  const char data[] = "NRNRAILR";
  const int64_t offsets[] = {0, 1, 2, 3, 3, 7, 8}; /* N R N "" RAIL R */
  int32_t codes[6] = {0};
  int64_t firsts[6] = {0}, distinct = 0;
  CHECK_OK(floe_binary_dictionary(offsets, 6, (const uint8_t*)data, 8, 6, codes, firsts, &distinct));
  CHECK_EQ_I64(distinct, 4);
  const int32_t want_codes[] = {0, 1, 0, 2, 3, 1};
  const int64_t want_firsts[] = {0, 1, 3, 4};
  for (int i = 0; i < 6; i++) CHECK_EQ_I64(codes[i], want_codes[i]);
  for (int i = 0; i < 4; i++) CHECK_EQ_I64(firsts[i], want_firsts[i]);
  CHECK_OK(floe_binary_dictionary(offsets, 6, (const uint8_t*)data, 8, 3, codes, firsts, &distinct));
  CHECK_EQ_I64(distinct, -1);
  const int64_t backwards[] = {0, 2, 1};
  CHECK_STATUS(floe_binary_dictionary(backwards, 2, (const uint8_t*)data, 8, 2, codes, firsts, &distinct),
               FLOE_INVALID_ARGUMENT);
  CHECK(strstr(floe_last_error(), "offset") != NULL);
  const int64_t past_end[] = {0, 9};
  CHECK_STATUS(floe_binary_dictionary(past_end, 1, (const uint8_t*)data, 8, 1, codes, firsts, &distinct),
               FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_binary_dictionary(offsets, 6, (const uint8_t*)data, 8, 6, codes, firsts, NULL),
               FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_binary_dictionary(offsets, 6, (const uint8_t*)data, 8, 6, NULL, firsts, &distinct),
               FLOE_INVALID_ARGUMENT);
  void* out[6] = {0};
  CHECK_EQ_I64(floe_py_binary_objects(offsets, offsets + 1, (const uint8_t*)data, 8, 6, 1, out), -1);
  CHECK(out[0] == NULL);
}

static void test_null_arguments(void) {
  floe_table* t = (floe_table*)1;
  floe_scan* s = (floe_scan*)1;
  CHECK_STATUS(floe_table_open(NULL, NULL, &t), FLOE_INVALID_ARGUMENT);
  CHECK(t == NULL);
  check_error_mentions("location is NULL");
  CHECK_STATUS(floe_table_open("x", NULL, NULL), FLOE_INVALID_ARGUMENT);
  char* str = (char*)1;
  CHECK_STATUS(floe_table_metadata_json(NULL, &str), FLOE_INVALID_ARGUMENT);
  CHECK(str == NULL);
  CHECK_STATUS(floe_table_metadata_json((floe_table*)1, NULL), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_table_metadata_location(NULL, &str), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_scan_open(NULL, NULL, &s), FLOE_INVALID_ARGUMENT);
  CHECK(s == NULL);
  CHECK_STATUS(floe_scan_open((floe_table*)1, NULL, NULL), FLOE_INVALID_ARGUMENT);
  struct ArrowSchema schema;
  CHECK_STATUS(floe_scan_schema(NULL, &schema), FLOE_INVALID_ARGUMENT);
  CHECK(schema.release == NULL);
  CHECK_STATUS(floe_scan_schema((floe_scan*)1, NULL), FLOE_INVALID_ARGUMENT);
  int64_t n = 5;
  CHECK_STATUS(floe_scan_plan(NULL, &n), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_scan_plan((floe_scan*)1, NULL), FLOE_INVALID_ARGUMENT);
  uint8_t* bytes = (uint8_t*)1;
  size_t len = 9;
  CHECK_STATUS(floe_scan_task(NULL, 0, &bytes, &len), FLOE_INVALID_ARGUMENT);
  CHECK(bytes == NULL && len == 0);
  CHECK_STATUS(floe_scan_task((floe_scan*)1, 0, NULL, &len), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_scan_task((floe_scan*)1, 0, &bytes, NULL), FLOE_INVALID_ARGUMENT);
  struct ArrowArrayStream stream;
  CHECK_STATUS(floe_scan_stream(NULL, &stream), FLOE_INVALID_ARGUMENT);
  CHECK(stream.release == NULL);
  CHECK_STATUS(floe_scan_stream((floe_scan*)1, NULL), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_task_stream(NULL, 0, NULL, &stream), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_task_stream((const uint8_t*)"{}", 2, NULL, NULL), FLOE_INVALID_ARGUMENT);
  CHECK_OK(floe_table_free(NULL));
  CHECK_OK(floe_scan_free(NULL));
  floe_string_free(NULL);
  floe_bytes_free(NULL);
  /* A success clears the previous error. */
  CHECK_STR(floe_last_error(), "");
}

static void test_bad_options(void) {
  const struct fixture* f = fixture_named("duckdb_uuid");
  char location[8192];
  fixture_location(f, location, sizeof location);
  floe_table* t = NULL;
  CHECK_STATUS(floe_table_open(location, "{\"location_map\": ", &t), FLOE_INVALID_ARGUMENT);
  check_error_mentions("not valid JSON");
  CHECK_STATUS(floe_table_open(location, "{\"locaton_map\": {}}", &t), FLOE_INVALID_ARGUMENT);
  check_error_mentions("locaton_map");
  CHECK_STATUS(floe_table_open(location, "[1, 2]", &t), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_table_open(location, "{} {}", &t), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_table_open(location, "{\"properties\": {\"s3.region\": \"x\"}}", &t), FLOE_UNSUPPORTED);
  check_error_mentions("s3.region");
  CHECK(t == NULL);

  t = open_fixture("duckdb_uuid");
  if (t == NULL) return;
  floe_scan* s = NULL;
  CHECK_STATUS(floe_scan_open(t, "{\"columns\": [\"uuid\"", &s), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_scan_open(t, "{\"colums\": [\"uuid\"]}", &s), FLOE_INVALID_ARGUMENT);
  check_error_mentions("colums");
  CHECK_STATUS(floe_scan_open(t, "{\"columns\": [\"nope\"]}", &s), FLOE_INVALID_ARGUMENT);
  check_error_mentions("nope");
  CHECK_STATUS(floe_scan_open(t, "{\"limit\": -1}", &s), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_scan_open(t, "{\"split_size\": -1}", &s), FLOE_INVALID_ARGUMENT);
  check_error_mentions("split_size");
  CHECK_STATUS(floe_scan_open(t, "{\"ordered\": 1}", &s), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_scan_open(t, "{\"snapshot_id\": 42}", &s), FLOE_NOT_FOUND);
  check_error_mentions("42");
  CHECK_STATUS(floe_scan_open(t, "{\"ref\": \"no-such-branch\"}", &s), FLOE_NOT_FOUND);
  CHECK_STATUS(floe_scan_open(t, "{\"as_of_timestamp\": 1000}", &s), FLOE_NOT_FOUND);
  CHECK_STATUS(floe_scan_open(t, "{\"ref\": \"main\", \"snapshot_id\": 3974286791591741252}", &s),
               FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_scan_open(t, "{\"filter\": \"nope = 1\"}", &s), FLOE_INVALID_ARGUMENT);
  check_error_mentions("nope");
  CHECK_STATUS(floe_scan_open(t, "{\"filter\": \"uuid <\"}", &s), FLOE_INVALID_ARGUMENT);
  CHECK(s == NULL);
  CHECK_OK(floe_scan_open(t, "{\"ref\": \"main\"}", &s));
  uint8_t* bytes = NULL;
  size_t len = 0;
  CHECK_STATUS(floe_scan_task(s, 2, &bytes, &len), FLOE_INVALID_ARGUMENT);
  check_error_mentions("out of range");
  CHECK_STATUS(floe_scan_task(s, -1, &bytes, &len), FLOE_INVALID_ARGUMENT);
  CHECK(bytes == NULL);
  floe_scan_free(s);
  floe_table_free(t);
}

static void test_missing_table(void) {
  floe_table* t = NULL;
  char location[8192];
  snprintf(location, sizeof location, "%s/no_such_table", fixtures_root);
  CHECK_STATUS(floe_table_open(location, NULL, &t), FLOE_NOT_FOUND);
  check_error_mentions("no_such_table");
  snprintf(location, sizeof location, "%s/duckdb_uuid/metadata/v99.metadata.json", fixtures_root);
  CHECK_STATUS(floe_table_open(location, NULL, &t), FLOE_NOT_FOUND);
  CHECK_STATUS(floe_table_open("hdfs://namenode/warehouse/table", NULL, &t), FLOE_UNSUPPORTED);
  CHECK(t == NULL);
  /* A file that is not table metadata. */
  snprintf(location, sizeof location, "%s/tables.json", fixtures_root);
  floe_status rc = floe_table_open(location, NULL, &t);
  CHECK(rc == FLOE_FORMAT || rc == FLOE_NOT_FOUND);
  CHECK(t == NULL);
}

static void test_freed_and_bogus_handles(void) {
  floe_table* t = open_fixture("duckdb_uuid");
  if (t == NULL) return;
  floe_scan* s = NULL;
  CHECK_OK(floe_scan_open(t, NULL, &s));

  /* A scan is not a table, and a table is not a scan. */
  char* json = NULL;
  CHECK_STATUS(floe_table_metadata_json((floe_table*)s, &json), FLOE_INVALID_ARGUMENT);
  check_error_mentions("floe_scan");
  int64_t n = 0;
  CHECK_STATUS(floe_scan_plan((floe_scan*)t, &n), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_table_free((floe_table*)s), FLOE_INVALID_ARGUMENT);

  /* Freeing the table leaves the scan usable. */
  CHECK_OK(floe_table_free(t));
  CHECK_OK(floe_scan_plan(s, &n));
  CHECK_EQ_I64(n, 1); /* its two small files, packed into one task */

  /* Use after free and double free are errors. */
  CHECK_STATUS(floe_table_metadata_json(t, &json), FLOE_INVALID_ARGUMENT);
  check_error_mentions("not valid");
  CHECK(json == NULL);
  CHECK_STATUS(floe_table_free(t), FLOE_INVALID_ARGUMENT);
  floe_scan* s2 = NULL;
  CHECK_STATUS(floe_scan_open(t, NULL, &s2), FLOE_INVALID_ARGUMENT);
  CHECK_OK(floe_scan_free(s));
  CHECK_STATUS(floe_scan_plan(s, &n), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_scan_free(s), FLOE_INVALID_ARGUMENT);
  struct ArrowArrayStream stream;
  CHECK_STATUS(floe_scan_stream(s, &stream), FLOE_INVALID_ARGUMENT);
  CHECK(stream.release == NULL);

  /* Handles floe never made. */
  CHECK_STATUS(floe_table_metadata_json((floe_table*)(uintptr_t)0xdeadbeef, &json), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_scan_plan((floe_scan*)&n, &n), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_table_free((floe_table*)(uintptr_t)-1), FLOE_INVALID_ARGUMENT);
}

static void test_bad_task_bytes(void) {
  struct ArrowArrayStream stream;
  static const char garbage[] = "\x01\x02 not a task";
  CHECK_STATUS(floe_task_stream((const uint8_t*)garbage, sizeof garbage - 1, NULL, &stream), FLOE_INVALID_ARGUMENT);
  CHECK(stream.release == NULL);
  static const char other_version[] = "{\"version\": 99, \"path\": \"x\"}";
  CHECK_STATUS(floe_task_stream((const uint8_t*)other_version, sizeof other_version - 1, NULL, &stream),
               FLOE_INVALID_ARGUMENT);
  check_error_mentions("version");
  static const char other_group_version[] = "{\"group_version\": 2, \"tasks\": []}";
  CHECK_STATUS(floe_task_stream((const uint8_t*)other_group_version, sizeof other_group_version - 1, NULL, &stream),
               FLOE_INVALID_ARGUMENT);
  check_error_mentions("version");
  /* Truncated real task bytes. */
  floe_table* t = open_fixture("duckdb_uuid");
  if (t == NULL) return;
  floe_scan* s = NULL;
  CHECK_OK(floe_scan_open(t, NULL, &s));
  uint8_t* bytes = NULL;
  size_t len = 0;
  CHECK_OK(floe_scan_task(s, 0, &bytes, &len));
  if (bytes != NULL) {
    CHECK_STATUS(floe_task_stream(bytes, len / 2, NULL, &stream), FLOE_INVALID_ARGUMENT);
    CHECK_STATUS(floe_task_stream(bytes, len, "{\"location_map\": 3}", &stream), FLOE_INVALID_ARGUMENT);
    CHECK_STATUS(floe_task_stream(bytes, len, "{\"warehouse\": \"/w\"}", &stream), FLOE_INVALID_ARGUMENT);
  }
  floe_bytes_free(bytes);
  floe_scan_free(s);
  floe_table_free(t);
}

/* ---- streams (they need the Parquet reader) --------------------------- */

static int64_t count_scan(floe_table* t, const char* scan_json) {
  floe_scan* s = NULL;
  floe_status rc = floe_scan_open(t, scan_json, &s);
  if (rc != FLOE_OK) {
    fprintf(stderr, "scan %s: %s: %s\n", scan_json ? scan_json : "NULL", floe_status_name(rc), floe_last_error());
    return -1;
  }
  struct ArrowArrayStream stream;
  rc = floe_scan_stream(s, &stream);
  if (rc != FLOE_OK) {
    fprintf(stderr, "stream %s: %s: %s\n", scan_json ? scan_json : "NULL", floe_status_name(rc), floe_last_error());
    floe_scan_free(s);
    return -1;
  }
  floe_scan_free(s); /* the stream outlives its scan */
  return stream_count_rows(&stream, NULL);
}

/* A stream's own batch size (floe_scan_stream_options) instead of the
 * scan's, the same rows; bad options refused. DuckDB's lineitem is one
 * row group of 51793 rows. */
static void test_stream_options(void) {
  floe_table* t = open_fixture("duckdb_lineitem_iceberg");
  if (t == NULL) return;
  floe_scan* s = NULL;
  CHECK_OK(floe_scan_open(t, "{\"columns\": [\"l_orderkey\"], \"batch_size\": 1000}", &s));
  const struct {
    const char* options;
    int64_t batches;
  } cases[] = {{NULL, 52}, {"{}", 52}, {"{\"batch_size\": 20000}", 3}, {"{\"batch_size\": 1000000}", 1}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    struct ArrowArrayStream stream;
    CHECK_OK(floe_scan_stream_options(s, cases[i].options, &stream));
    int64_t batches = 0;
    CHECK_EQ_I64(stream_count_rows(&stream, &batches), 51793);
    CHECK_EQ_I64(batches, cases[i].batches);
  }
  struct ArrowArrayStream stream;
  CHECK_STATUS(floe_scan_stream_options(s, "{\"batch_size\": -1}", &stream), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_scan_stream_options(s, "{\"batch_sise\": 10}", &stream), FLOE_INVALID_ARGUMENT);
  CHECK(strstr(floe_last_error(), "batch_sise") != NULL);
  CHECK_STATUS(floe_scan_stream_options(s, "{\"batch_size\": 10", &stream), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_scan_stream_options(NULL, "{}", &stream), FLOE_INVALID_ARGUMENT);
  floe_scan_free(s);
  floe_table_free(t);
}

static void test_row_counts(void) {
  for (int i = 0; i < fixture_count; i++) {
    floe_table* t = open_fixture(fixtures[i].name);
    if (t == NULL) continue;
    int64_t rows = count_scan(t, NULL);
    if (rows != fixtures[i].rows) {
      atomic_fetch_add(&test_failures, 1);
      fprintf(stderr, "%s: %lld rows, want %lld\n", fixtures[i].name, (long long)rows, fixtures[i].rows);
    }
    floe_table_free(t);
  }
}

static void test_time_travel_and_limit(void) {
  floe_table* t = open_fixture("duckdb_lineitem_iceberg");
  if (t != NULL) {
    CHECK_EQ_I64(count_scan(t, "{\"snapshot_id\": 7817332053627255703}"), 60175);
    CHECK_EQ_I64(count_scan(t, "{\"limit\": 1000}"), 1000);
    CHECK_EQ_I64(count_scan(t, "{\"columns\": [\"l_orderkey\"], \"batch_size\": 1000, \"threads\": 1}"), 51793);
    floe_table_free(t);
  }
  t = open_fixture("impala_iceberg_v3_deletion_vectors");
  if (t != NULL) {
    CHECK_EQ_I64(count_scan(t, "{\"snapshot_id\": 2700858159721908397}"), 5);
    floe_table_free(t);
  }
  t = open_fixture("impala_iceberg_v2_partitioned_position_deletes");
  if (t != NULL) {
    CHECK_EQ_I64(count_scan(t, "{\"snapshot_id\": 2057976186205897384}"), 20);
    floe_table_free(t);
  }
}

/* Opens a stream over a whole fixture and returns its single batch merged
 * into rows via callback. */
typedef void (*row_fn)(const struct ArrowSchema* schema, const struct ArrowArray* batch, int64_t row, void* ctx);

static void for_each_row(const char* fixture, const char* scan_json, row_fn fn, void* ctx) {
  floe_table* t = open_fixture(fixture);
  if (t == NULL) return;
  floe_scan* s = NULL;
  CHECK_OK(floe_scan_open(t, scan_json, &s));
  floe_table_free(t);
  if (s == NULL) return;
  struct ArrowSchema schema;
  CHECK_OK(floe_scan_schema(s, &schema));
  struct ArrowArrayStream stream;
  floe_status rc = floe_scan_stream(s, &stream);
  if (rc != FLOE_OK) {
    atomic_fetch_add(&test_failures, 1);
    fprintf(stderr, "%s: floe_scan_stream: %s: %s\n", fixture, floe_status_name(rc), floe_last_error());
    schema.release(&schema);
    floe_scan_free(s);
    return;
  }
  floe_scan_free(s);
  /* The stream's schema matches the scan's. */
  struct ArrowSchema stream_schema;
  CHECK(stream.get_schema(&stream, &stream_schema) == 0);
  CHECK_EQ_I64(stream_schema.n_children, schema.n_children);
  stream_schema.release(&stream_schema);
  for (;;) {
    struct ArrowArray batch;
    int e = stream.get_next(&stream, &batch);
    if (e != 0) {
      atomic_fetch_add(&test_failures, 1);
      fprintf(stderr, "%s: get_next: %d: %s\n", fixture, e, stream.get_last_error(&stream));
      break;
    }
    if (batch.release == NULL) break;
    CHECK_EQ_I64(batch.n_children, schema.n_children);
    for (int64_t r = 0; r < batch.length; r++) fn(&schema, &batch, r, ctx);
    batch.release(&batch);
  }
  stream.release(&stream);
  CHECK(stream.release == NULL);
  schema.release(&schema);
}

struct all_types_seen {
  int rows, row1, row2;
};

static void check_all_types_row(const struct ArrowSchema* schema, const struct ArrowArray* b, int64_t r, void* ctx) {
  struct all_types_seen* seen = ctx;
  seen->rows++;
#define COL(name) b->children[schema_field(schema, name)]
  for (int i = 0; i < 12; i++) {
    static const char* names[] = {"id", "col_boolean", "col_int", "col_bigint", "col_float", "col_double",
                                  "col_decimal", "col_string", "col_date", "col_timestamp",
                                  "col_timestamp_epoch", "col_timestamp_iso"};
    if (schema_field(schema, names[i]) < 0) {
      CHECK(!"all_types column missing");
      return;
    }
    CHECK(!arrow_is_null(COL(names[i]), r));
  }
  int32_t id = arrow_i32(COL("id"), r), len;
  const uint8_t* str = arrow_bytes(COL("col_string"), r, &len);
  /* The two timestamp columns no data file has come from initial-default. */
  CHECK_EQ_I64(arrow_i64(COL("col_timestamp_epoch"), r), 0);
  CHECK_EQ_I64(arrow_i64(COL("col_timestamp_iso"), r), 1705314645123456LL);
  if (id == 1) {
    seen->row1++;
    CHECK(arrow_bool(COL("col_boolean"), r) == false);
    CHECK_EQ_I64(arrow_i32(COL("col_int"), r), -1);
    CHECK_EQ_I64(arrow_i64(COL("col_bigint"), r), -1);
    CHECK(arrow_f32(COL("col_float"), r) == 1.5f);
    CHECK(arrow_f64(COL("col_double"), r) == 2.5);
    CHECK_EQ_I64(arrow_decimal_lo(COL("col_decimal"), r), 12345);
    CHECK(len == 15 && memcmp(str, "initial_default", 15) == 0);
    CHECK_EQ_I64(arrow_i32(COL("col_date"), r), 19723);
    CHECK_EQ_I64(arrow_i64(COL("col_timestamp"), r), -876544);
  } else if (id == 2) {
    seen->row2++;
    CHECK(arrow_bool(COL("col_boolean"), r) == true);
    CHECK_EQ_I64(arrow_i32(COL("col_int"), r), 42);
    CHECK_EQ_I64(arrow_i64(COL("col_bigint"), r), 9999999999LL);
    CHECK(arrow_f32(COL("col_float"), r) == 3.14f);
    CHECK(arrow_f64(COL("col_double"), r) == 2.71828);
    CHECK_EQ_I64(arrow_decimal_lo(COL("col_decimal"), r), 99999);
    CHECK(len == 8 && memcmp(str, "explicit", 8) == 0);
    CHECK_EQ_I64(arrow_i32(COL("col_date"), r), 20082);
    CHECK_EQ_I64(arrow_i64(COL("col_timestamp"), r), 1735122645123456LL);
  } else {
    CHECK(!"unexpected id");
  }
#undef COL
}

static void test_all_types_values(void) {
  struct all_types_seen seen = {0, 0, 0};
  for_each_row("impala_iceberg_v3_all_types", NULL, check_all_types_row, &seen);
  CHECK_EQ_I64(seen.rows, 2);
  CHECK_EQ_I64(seen.row1, 1);
  CHECK_EQ_I64(seen.row2, 1);
}

static const char* const expected_uuids[10] = {
    "8dc314d8-3fd4-4b3a-8bf5-c008f363c2e4", "a217c09f-06fa-4e91-8315-ff44753c4a54",
    "abd6f939-9b99-4e1d-9cda-0dc8ce60a161", "e6218567-354b-4a9c-8cd7-3d4b6a2470f8",
    "f9f28465-51cf-45f1-8985-e01d9a82253c", "1571effb-facd-42a3-90e9-0af522e9b6c2",
    "160a53fe-3d8b-443d-bd36-ad66287f585a", "37afa09a-f496-48a8-89a9-61ea7ccd85d5",
    "3ef257b8-e9c6-4c53-9c22-973729e1043f", "7fae299c-cf05-4777-9b42-57a52e1415ed",
};

static void note_uuid(const struct ArrowSchema* schema, const struct ArrowArray* b, int64_t r, void* ctx) {
  (void)schema;
  int* found = ctx;
  const uint8_t* u = arrow_fixed(b->children[0], r, 16);
  char text[37];
  snprintf(text, sizeof text, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
           u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
  for (int i = 0; i < 10; i++)
    if (strcmp(text, expected_uuids[i]) == 0) {
      found[i]++;
      return;
    }
  atomic_fetch_add(&test_failures, 1);
  fprintf(stderr, "unexpected uuid %s\n", text);
}

static void test_uuid_values(void) {
  int found[10] = {0};
  for_each_row("duckdb_uuid", NULL, note_uuid, found);
  for (int i = 0; i < 10; i++)
    if (found[i] != 1) {
      atomic_fetch_add(&test_failures, 1);
      fprintf(stderr, "uuid %s seen %d times\n", expected_uuids[i], found[i]);
    }
}

static void note_i_j(const struct ArrowSchema* schema, const struct ArrowArray* b, int64_t r, void* ctx) {
  int32_t* j_of_i = ctx; /* j_of_i[i] = j, or INT32_MIN for NULL */
  const struct ArrowArray* i = b->children[schema_field(schema, "i")];
  const struct ArrowArray* j = b->children[schema_field(schema, "j")];
  int32_t key = arrow_i32(i, r);
  if (key < 1 || key > 5) {
    CHECK(!"unexpected i");
    return;
  }
  j_of_i[key] = arrow_is_null(j, r) ? INT32_MIN : arrow_i32(j, r);
}

static void test_default_part_values(void) {
  int32_t j_of_i[6] = {7, 7, 7, 7, 7, 7};
  for_each_row("impala_test_default_part", NULL, note_i_j, j_of_i);
  CHECK_EQ_I64(j_of_i[1], -1);
  CHECK_EQ_I64(j_of_i[2], -1);
  CHECK_EQ_I64(j_of_i[3], 5);
  CHECK_EQ_I64(j_of_i[4], 10);
  CHECK_EQ_I64(j_of_i[5], INT32_MIN);
}

static void note_i(const struct ArrowSchema* schema, const struct ArrowArray* b, int64_t r, void* ctx) {
  int* seen = ctx;
  int32_t v = arrow_i32(b->children[schema_field(schema, "i")], r);
  if (v >= 1 && v <= 5) seen[v]++;
}

static void test_deletion_vector_values(void) {
  int seen[6] = {0};
  for_each_row("impala_iceberg_v3_deletion_vectors", NULL, note_i, seen);
  CHECK(seen[1] == 1 && seen[2] == 0 && seen[3] == 1 && seen[4] == 0 && seen[5] == 1);
}

/* Every task, serialised and read back through floe_task_stream, gives the
 * rows of the whole scan: packed files (the default), one file per task,
 * and byte ranges of files. At a 200-byte split size, files whose manifest
 * says they hold one row group (split_offsets [4]: uuid, the DV table) stay
 * whole; the Hive-written files of the position-delete table (no split
 * offsets, about 1200 bytes each) are cut into fixed ranges, only one of
 * which holds the file's row group. A stream with "ordered": false gives
 * the same number of rows. */
static void test_task_streams(void) {
  const char* names[] = {"duckdb_uuid", "impala_iceberg_v3_deletion_vectors",
                         "impala_iceberg_v2_partitioned_position_deletes"};
  const int64_t data_files[] = {2, 5, 3}, split_tasks_at_least[] = {2, 5, 12};
  const char* scans[] = {NULL, ONE_FILE_PER_TASK, "{\"split_size\": 200}"};
  for (size_t n = 0; n < sizeof names / sizeof names[0] * 3; n++) {
    const struct fixture* f = fixture_named(names[n / 3]);
    const char* scan = scans[n % 3];
    floe_table* t = open_fixture(f->name);
    if (t == NULL) continue;
    floe_scan* s = NULL;
    CHECK_OK(floe_scan_open(t, scan, &s));
    floe_table_free(t);
    int64_t tasks = 0, rows = 0;
    CHECK_OK(floe_scan_plan(s, &tasks));
    if (n % 3 == 0) CHECK_EQ_I64(tasks, 1);
    if (n % 3 == 1) CHECK_EQ_I64(tasks, data_files[n / 3]);
    if (n % 3 == 2) CHECK(tasks >= split_tasks_at_least[n / 3]);
    char options[16384];
    fixture_options(f, options, sizeof options);
    for (int64_t i = 0; i < tasks; i++) {
      uint8_t* bytes = NULL;
      size_t len = 0;
      CHECK_OK(floe_scan_task(s, i, &bytes, &len));
      struct ArrowArrayStream stream;
      floe_status rc = floe_task_stream(bytes, len, options, &stream);
      floe_bytes_free(bytes);
      if (rc != FLOE_OK) {
        atomic_fetch_add(&test_failures, 1);
        fprintf(stderr, "%s task %lld: %s: %s\n", f->name, (long long)i, floe_status_name(rc), floe_last_error());
        rows = -1;
        break;
      }
      int64_t got = stream_count_rows(&stream, NULL);
      if (got < 0) {
        rows = -1;
        break;
      }
      rows += got;
    }
    if (rows != f->rows) {
      atomic_fetch_add(&test_failures, 1);
      fprintf(stderr, "%s, scan %s: tasks gave %lld rows, want %lld\n", f->name, scan ? scan : "{}", (long long)rows,
              f->rows);
    }
    floe_scan_free(s);
  }
  for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
    const struct fixture* f = fixture_named(names[n]);
    floe_table* t = open_fixture(f->name);
    if (t == NULL) continue;
    floe_scan* s = NULL;
    CHECK_OK(floe_scan_open(t, "{\"ordered\": false, \"threads\": 4, \"split_size\": 200}", &s));
    floe_table_free(t);
    struct ArrowArrayStream stream;
    CHECK_OK(floe_scan_stream(s, &stream));
    CHECK_EQ_I64(stream_count_rows(&stream, NULL), f->rows);
    floe_scan_free(s);
  }
}

/* Unconsumed and half-consumed streams release cleanly; a stream keeps
 * working after its table and scan are freed; callbacks on an ended stream
 * keep answering "end". */
static void test_stream_lifetimes(void) {
  floe_table* t = open_fixture("duckdb_lineitem_iceberg");
  if (t == NULL) return;
  floe_scan* s = NULL;
  CHECK_OK(floe_scan_open(t, "{\"batch_size\": 4096}", &s));
  struct ArrowArrayStream unconsumed, half, full;
  CHECK_OK(floe_scan_stream(s, &unconsumed));
  CHECK_OK(floe_scan_stream(s, &half));
  CHECK_OK(floe_scan_stream(s, &full));
  floe_scan_free(s);
  floe_table_free(t);
  if (unconsumed.release) unconsumed.release(&unconsumed);
  if (half.release) {
    struct ArrowArray kept;
    CHECK(half.get_next(&half, &kept) == 0);
    half.release(&half); /* the batch outlives its stream */
    CHECK(kept.release != NULL && kept.length > 0 && kept.n_children == 16);
    if (kept.release) kept.release(&kept);
  }
  if (full.release) {
    CHECK_EQ_I64(stream_count_rows(&full, NULL), 51793);
  }
}

/* ---- threads ---------------------------------------------------------- */

enum { THREADS = 4 };

struct worker {
  int index;
  pthread_barrier_t* barrier;
  int stream;
};

static void* open_and_plan_worker(void* arg) {
  struct worker* w = arg;
  pthread_barrier_wait(w->barrier);
  for (int round = 0; round < 10; round++) {
    const struct fixture* f = &fixtures[(w->index + round) % fixture_count];
    floe_table* t = open_fixture(f->name);
    if (t == NULL) continue;
    char* json = NULL;
    CHECK_OK(floe_table_metadata_json(t, &json));
    floe_string_free(json);
    floe_scan* s = NULL;
    CHECK_OK(floe_scan_open(t, NULL, &s));
    int64_t tasks = 0;
    CHECK_OK(floe_scan_plan(s, &tasks));
    CHECK(tasks > 0);
    uint8_t* bytes = NULL;
    size_t len = 0;
    CHECK_OK(floe_scan_task(s, tasks - 1, &bytes, &len));
    floe_bytes_free(bytes);

    /* Errors are per thread: this thread's message survives the others'
     * failures between the failing call and reading it. */
    char bad[64];
    snprintf(bad, sizeof bad, "{\"columns\": [\"missing_%d\"]}", w->index);
    floe_scan* none = NULL;
    CHECK_STATUS(floe_scan_open(t, bad, &none), FLOE_INVALID_ARGUMENT);
    pthread_barrier_wait(w->barrier);
    char want[32];
    snprintf(want, sizeof want, "missing_%d", w->index);
    CHECK(strstr(floe_last_error(), want) != NULL);
    pthread_barrier_wait(w->barrier);

    floe_scan_free(s);
    floe_table_free(t);
  }
  return NULL;
}

/* Several threads share one table and one scan handle, and stream at once. */
static floe_table* shared_table;

static void* stream_worker(void* arg) {
  struct worker* w = arg;
  pthread_barrier_wait(w->barrier);
  for (int round = 0; round < 3; round++) {
    floe_scan* s = NULL;
    CHECK_OK(floe_scan_open(shared_table, w->index % 2 ? "{\"threads\": 1}" : NULL, &s));
    struct ArrowArrayStream stream;
    floe_status rc = floe_scan_stream(s, &stream);
    if (rc != FLOE_OK) {
      atomic_fetch_add(&test_failures, 1);
      fprintf(stderr, "thread %d: floe_scan_stream: %s: %s\n", w->index, floe_status_name(rc), floe_last_error());
      floe_scan_free(s);
      return NULL;
    }
    floe_scan_free(s);
    CHECK_EQ_I64(stream_count_rows(&stream, NULL), 51793);
  }
  return NULL;
}

static void run_workers(void* (*fn)(void*)) {
  pthread_t threads[THREADS];
  struct worker workers[THREADS];
  pthread_barrier_t barrier;
  pthread_barrier_init(&barrier, NULL, THREADS);
  for (int i = 0; i < THREADS; i++) {
    workers[i] = (struct worker){.index = i, .barrier = &barrier};
    CHECK(pthread_create(&threads[i], NULL, fn, &workers[i]) == 0);
  }
  for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);
  pthread_barrier_destroy(&barrier);
}

static void test_threads_open_and_plan(void) { run_workers(open_and_plan_worker); }

static void test_threads_stream(void) {
  shared_table = open_fixture("duckdb_lineitem_iceberg");
  if (shared_table == NULL) return;
  run_workers(stream_worker);
  floe_table_free(shared_table);
}

/* Threads that leave an error message behind and exit: the per-thread
 * message buffers must be freed (LeakSanitizer checks this at exit). */
static void* fail_and_exit(void* arg) {
  (void)arg;
  floe_table* t = NULL;
  CHECK_STATUS(floe_table_open("", NULL, &t), FLOE_INVALID_ARGUMENT);
  CHECK(strlen(floe_last_error()) > 0);
  return NULL;
}

static void test_thread_exit(void) {
  for (int round = 0; round < 16; round++) {
    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; i++) CHECK(pthread_create(&threads[i], NULL, fail_and_exit, NULL) == 0);
    for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);
  }
}

/* ---- main ------------------------------------------------------------- */

struct test {
  const char* group;
  const char* name;
  void (*fn)(void);
};

static const struct test tests[] = {
    {"basics", "version", test_version},
    {"basics", "open_every_fixture", test_open_every_fixture},
    {"basics", "plan_counts", test_plan_counts},
    {"basics", "schema", test_schema},
    {"basics", "metadata_file_and_dataset_name", test_metadata_file_and_dataset_name},
    {"basics", "binary_dictionary", test_binary_dictionary},
    {"errors", "null_arguments", test_null_arguments},
    {"errors", "bad_options", test_bad_options},
    {"errors", "missing_table", test_missing_table},
    {"errors", "freed_and_bogus_handles", test_freed_and_bogus_handles},
    {"errors", "bad_task_bytes", test_bad_task_bytes},
    {"threads", "open_and_plan", test_threads_open_and_plan},
    {"threads", "thread_exit", test_thread_exit},
    {"streams", "row_counts", test_row_counts},
    {"streams", "stream_options", test_stream_options},
    {"streams", "time_travel_and_limit", test_time_travel_and_limit},
    {"streams", "all_types_values", test_all_types_values},
    {"streams", "uuid_values", test_uuid_values},
    {"streams", "default_part_values", test_default_part_values},
    {"streams", "deletion_vector_values", test_deletion_vector_values},
    {"streams", "task_streams", test_task_streams},
    {"streams", "stream_lifetimes", test_stream_lifetimes},
    {"streams", "task_host_io", test_task_host_io},
    {"threads_stream", "four_threads_streaming", test_threads_stream},
    {"threads_stream", "streams_across_threads", test_streams_across_threads},
    {"filters", "add_filter_narrows", test_add_filter_narrows},
    {"filters", "add_filter_errors", test_add_filter_errors},
    {"filters", "metrics", test_metrics},
    {"threads_filter", "add_filter_while_streaming", test_add_filter_while_streaming},
    {"write", "append_roundtrip", test_write_append_roundtrip},
    {"write", "write_files_and_commit", test_write_files_and_commit},
    {"write", "errors", test_write_errors},
    {"write", "json_rows", test_write_json_rows},
    {"write", "delete_rows", test_write_delete_rows},
    {"write", "catalog", test_write_catalog},
    {"write", "add_files", test_write_add_files},
    {"transaction", "schema_and_append", test_transaction_schema_and_append},
    {"transaction", "refs_and_spec", test_transaction_refs_and_spec},
    {"transaction", "errors", test_transaction_errors},
    {"transaction", "catalog_commit", test_catalog_transaction},
    {"inspect", "snapshots", test_inspect_snapshots},
    {"inspect", "options", test_inspect_options},
    {"inspect", "errors", test_inspect_errors},
    {"inspect", "every_kind", test_inspect_every_kind},
    {"inspect", "plan", test_inspect_plan},
    {"maintain", "compact_and_stats", test_maintain_compact_and_stats},
    {"maintain", "errors", test_maintain_errors},
};

static int selected(const char* group, int argc, char** argv) {
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], group) == 0 || strcmp(argv[i], "all") == 0) return 1;
    if (strcmp(argv[i], "single") == 0 && strncmp(group, "threads", 7) != 0) return 1;
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s FIXTURES_DIR GROUP...  (basics errors threads streams threads_stream filters threads_filter write transaction inspect maintain all single)\n",
            argv[0]);
    return 2;
  }
  snprintf(fixtures_root, sizeof fixtures_root, "%s", argv[1]);
  int ran = 0;
  for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
    if (!selected(tests[i].group, argc, argv)) continue;
    int before = atomic_load(&test_failures);
    tests[i].fn();
    int failed = atomic_load(&test_failures) - before;
    printf("%-5s %s/%s\n", failed ? "FAIL" : "ok", tests[i].group, tests[i].name);
    ran++;
  }
  if (ran == 0) {
    fprintf(stderr, "no test selected\n");
    return 2;
  }
  /* Hand floe's pooled batch buffers back so LeakSanitizer sees no leak. */
  floe_release_cached_memory();
  int failures = atomic_load(&test_failures);
  printf("%d check(s) failed\n", failures);
  return failures ? 1 : 0;
}
