/* Metadata tables through floe_inspect. The expected snapshots of
 * impala_iceberg_v2_positional_not_all_data_files_have_delete_files are
 * those its last metadata JSON lists (v6.metadata.json, read apart from
 * floe): six, four appends then two overwrites, each the parent of the
 * next. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow_read.h"
#include "floe.h"
#include "harness.h"
#include "test_inspect.h"

#define SIX_SNAPSHOTS "impala_iceberg_v2_positional_not_all_data_files_have_delete_files"
#define POSITION_DELETES "impala_iceberg_v2_partitioned_position_deletes"

static const int64_t six_ids[6] = {4363979609026842966LL, 5762682948883272650LL, 7508485421322116327LL,
                                   7490459762454857930LL, 752781918366351945LL, 1497619269847778439LL};
static const int64_t first_committed_ms = 1660916807090LL;

/* What a read of a metadata table saw. */
struct inspect_read {
  int64_t rows, batches;
  int columns;
  char first_column[64];
  int64_t ids[16]; /* snapshot_id values, when that column is read */
  int64_t null_parents;
  int64_t first_committed_us; /* committed_at of the first row */
};

/* Reads floe_inspect(t, kind, options) to its end into r; returns the
 * status of floe_inspect (a stream error is a failed check). */
static floe_status read_inspect(floe_table* t, const char* kind, const char* options, struct inspect_read* r) {
  memset(r, 0, sizeof *r);
  struct ArrowArrayStream stream;
  floe_status rc = floe_inspect(t, kind, options, &stream);
  if (rc != FLOE_OK) {
    CHECK(stream.release == NULL);
    return rc;
  }
  struct ArrowSchema schema;
  CHECK(stream.get_schema(&stream, &schema) == 0);
  r->columns = (int)schema.n_children;
  if (schema.n_children > 0) snprintf(r->first_column, sizeof r->first_column, "%s", schema.children[0]->name);
  int id = schema_field(&schema, "snapshot_id"), parent = schema_field(&schema, "parent_id"),
      committed = schema_field(&schema, "committed_at");
  schema.release(&schema);
  for (;;) {
    struct ArrowArray batch;
    int e = stream.get_next(&stream, &batch);
    if (e != 0) {
      atomic_fetch_add(&test_failures, 1);
      fprintf(stderr, "inspect %s %s: get_next: %d: %s\n", kind, options ? options : "NULL", e,
              stream.get_last_error(&stream));
      break;
    }
    if (batch.release == NULL) break;
    CHECK(batch.n_children == r->columns);
    for (int64_t i = 0; i < batch.length; i++) {
      int64_t row = r->rows + i;
      if (id >= 0 && row < 16) r->ids[row] = arrow_i64(batch.children[id], i);
      if (parent >= 0 && arrow_is_null(batch.children[parent], i)) r->null_parents++;
      if (committed >= 0 && row == 0) r->first_committed_us = arrow_i64(batch.children[committed], i);
    }
    r->rows += batch.length;
    r->batches++;
    batch.release(&batch);
  }
  stream.release(&stream);
  return FLOE_OK;
}

static int has_id(const struct inspect_read* r, int64_t want) {
  for (int64_t i = 0; i < r->rows && i < 16; i++)
    if (r->ids[i] == want) return 1;
  return 0;
}

void test_inspect_snapshots(void) {
  floe_table* t = open_fixture(SIX_SNAPSHOTS);
  if (t == NULL) return;
  struct inspect_read r;
  CHECK_OK(read_inspect(t, "snapshots", NULL, &r));
  CHECK_EQ_I64(r.rows, 6);
  CHECK_EQ_I64(r.columns, 6);
  CHECK_STR(r.first_column, "committed_at");
  for (int i = 0; i < 6; i++) CHECK(has_id(&r, six_ids[i]));
  CHECK_EQ_I64(r.null_parents, 1); /* only the first snapshot has none */
  CHECK_EQ_I64(r.first_committed_us, first_committed_ms * 1000);

  /* Filters in both forms, over the metadata table's columns. */
  CHECK_OK(read_inspect(t, "snapshots", "{\"filter\": \"operation = 'overwrite'\"}", &r));
  CHECK_EQ_I64(r.rows, 2);
  CHECK(has_id(&r, six_ids[4]) && has_id(&r, six_ids[5]));
  CHECK_OK(read_inspect(t, "snapshots", "{\"filter\": {\"type\": \"eq\", \"term\": \"operation\", \"value\": \"append\"}}", &r));
  CHECK_EQ_I64(r.rows, 4);
  CHECK(!has_id(&r, six_ids[4]));
  CHECK_OK(read_inspect(t, "snapshots", "{\"filter\": \"parent_id is null\"}", &r));
  CHECK_EQ_I64(r.rows, 1);
  CHECK_EQ_I64(r.ids[0], six_ids[0]);
  floe_table_free(t);
}

void test_inspect_options(void) {
  floe_table* t = open_fixture(SIX_SNAPSHOTS);
  if (t == NULL) return;
  struct inspect_read r;
  CHECK_OK(read_inspect(t, "snapshots", "{\"columns\": [\"snapshot_id\", \"operation\"], \"limit\": 3}", &r));
  CHECK_EQ_I64(r.columns, 2);
  CHECK_STR(r.first_column, "snapshot_id");
  CHECK_EQ_I64(r.rows, 3);
  /* limit 0 is no rows, as in scans; the schema stays. */
  CHECK_OK(read_inspect(t, "snapshots", "{\"columns\": [\"operation\"], \"limit\": 0}", &r));
  CHECK_EQ_I64(r.rows, 0);
  CHECK_EQ_I64(r.columns, 1);
  CHECK_OK(read_inspect(t, "snapshots", "{\"batch_size\": 2}", &r));
  CHECK_EQ_I64(r.rows, 6);
  CHECK_EQ_I64(r.batches, 3);
  CHECK_OK(read_inspect(t, "snapshots", "{\"columns\": [\"SNAPSHOT_ID\"], \"case_sensitive\": false}", &r));
  CHECK_EQ_I64(r.rows, 6);
  CHECK_STR(r.first_column, "snapshot_id");
  CHECK_OK(read_inspect(t, "snapshots", "{\"filter\": \"OPERATION = 'overwrite'\", \"case_insensitive\": true}", &r));
  CHECK_EQ_I64(r.rows, 2);

  /* A stream outlives the table handle it was opened from. */
  struct ArrowArrayStream stream;
  CHECK_OK(floe_inspect(t, "snapshots", "{}", &stream));
  floe_table_free(t);
  if (stream.release != NULL) CHECK_EQ_I64(stream_count_rows(&stream, NULL), 6);
}

/* Calls floe_inspect expecting want, and the error message to hold needle. */
static void check_refused(floe_table* t, const char* kind, const char* options, floe_status want, const char* needle) {
  struct ArrowArrayStream stream;
  memset(&stream, 0xff, sizeof stream);
  CHECK_STATUS(floe_inspect(t, kind, options, &stream), want);
  CHECK(stream.release == NULL);
  if (needle != NULL && strstr(floe_last_error(), needle) == NULL) {
    atomic_fetch_add(&test_failures, 1);
    fprintf(stderr, "inspect %s %s: error \"%s\" does not say \"%s\"\n", kind ? kind : "NULL",
            options ? options : "NULL", floe_last_error(), needle);
  }
}

void test_inspect_errors(void) {
  floe_table* t = open_fixture(SIX_SNAPSHOTS);
  if (t == NULL) return;
  struct ArrowArrayStream stream;
  CHECK_STATUS(floe_inspect(NULL, "snapshots", NULL, &stream), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_inspect(t, "snapshots", NULL, NULL), FLOE_INVALID_ARGUMENT);
  check_refused(t, NULL, NULL, FLOE_INVALID_ARGUMENT, "kind");
  check_refused(t, "", NULL, FLOE_INVALID_ARGUMENT, "kind is empty");
  check_refused(t, "snapshotz", NULL, FLOE_INVALID_ARGUMENT, "\"snapshotz\"");
  CHECK(strstr(floe_last_error(), "did you mean \"snapshots\"") != NULL);
  check_refused(t, "snapshots", "{\"colums\": [\"a\"]}", FLOE_INVALID_ARGUMENT, "colums");
  check_refused(t, "snapshots", "{\"limit\": -1}", FLOE_INVALID_ARGUMENT, "limit -1");
  check_refused(t, "snapshots", "{\"batch_size\": -5}", FLOE_INVALID_ARGUMENT, "batch_size -5");
  check_refused(t, "snapshots", "{\"timeout_ms\": -1}", FLOE_INVALID_ARGUMENT, "timeout_ms");
  check_refused(t, "snapshots", "{\"limit\": 1", FLOE_INVALID_ARGUMENT, "not valid JSON");
  check_refused(t, "snapshots", "{\"columns\": [\"nope\"]}", FLOE_INVALID_ARGUMENT, "\"nope\"");
  check_refused(t, "snapshots", "{\"filter\": \"nope = 1\"}", FLOE_INVALID_ARGUMENT, "nope");
  check_refused(t, "snapshots", "{\"filter\": \"snapshot_id = = 1\"}", FLOE_INVALID_ARGUMENT, NULL);
  check_refused(t, "snapshots", "{\"case_sensitive\": true, \"case_insensitive\": true}", FLOE_INVALID_ARGUMENT,
                "disagree");
  check_refused(t, "snapshots", "{\"snapshot_id\": 1, \"ref\": \"main\"}", FLOE_INVALID_ARGUMENT, "not both");
  /* snapshots covers the whole history: no snapshot to choose (Java). */
  check_refused(t, "snapshots", "{\"snapshot_id\": 1497619269847778439}", FLOE_INVALID_ARGUMENT, "whole table");
  floe_table_free(t);
  /* A freed handle is an error, not a crash. */
  check_refused(t, "snapshots", NULL, FLOE_INVALID_ARGUMENT, NULL);
}

/* Every kind of Java's: either floe has it and it reads to its end (ASan
 * watching), or it is refused as a kind floe does not have. */
void test_inspect_every_kind(void) {
  static const char* kinds[] = {"snapshots", "history", "metadata_log_entries", "refs", "manifests", "all_manifests",
                                "entries", "all_entries", "files", "data_files", "delete_files", "all_files",
                                "all_data_files", "all_delete_files", "partitions", "position_deletes"};
  static const char* tables[] = {SIX_SNAPSHOTS, "impala_iceberg_v3_deletion_vectors", "duckdb_lineitem_iceberg"};
  for (size_t ti = 0; ti < sizeof tables / sizeof tables[0]; ti++) {
    floe_table* t = open_fixture(tables[ti]);
    if (t == NULL) continue;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
      struct inspect_read r;
      floe_status rc = read_inspect(t, kinds[k], "{\"batch_size\": 7}", &r);
      if (rc == FLOE_OK) {
        CHECK(r.columns > 0);
        if (strcmp(kinds[k], "snapshots") == 0) CHECK(r.rows > 0);
        /* A stream released after one batch stops its source and leaks
         * nothing (LeakSanitizer at exit). */
        struct ArrowArrayStream stream;
        CHECK_OK(floe_inspect(t, kinds[k], "{\"batch_size\": 1}", &stream));
        if (stream.release != NULL) {
          struct ArrowArray batch;
          CHECK(stream.get_next(&stream, &batch) == 0);
          CHECK(r.rows == 0 || (batch.release != NULL && batch.length == 1));
          if (batch.release != NULL) batch.release(&batch);
          stream.release(&stream);
        }
      } else if (rc != FLOE_INVALID_ARGUMENT || strstr(floe_last_error(), "no metadata table") == NULL) {
        atomic_fetch_add(&test_failures, 1);
        fprintf(stderr, "inspect %s of %s: %s: %s\n", kinds[k], tables[ti], floe_status_name(rc), floe_last_error());
      }
    }
    floe_table_free(t);
  }
}

/* The next top-level JSON value of the array text at *p (after '[' or
 * ','), as [*start, *end); 0 when the array ends. Strings are skipped
 * whole, so braces inside them do not count. */
static int next_array_element(const char** p, const char** start, const char** end) {
  const char* s = *p;
  while (*s == '[' || *s == ',' || *s == ' ' || *s == '\n') s++;
  if (*s != '{') return 0;
  *start = s;
  int depth = 0, in_string = 0;
  for (; *s; s++) {
    if (in_string) {
      if (*s == '\\' && s[1]) s++;
      else if (*s == '"') in_string = 0;
    } else if (*s == '"') {
      in_string = 1;
    } else if (*s == '{' || *s == '[') {
      depth++;
    } else if ((*s == '}' || *s == ']') && --depth == 0) {
      *end = s + 1;
      *p = s + 1;
      return 1;
    }
  }
  return 0;
}

/* Plans kind as tasks and reads each element of the array with
 * floe_task_stream (the table handle freed first: a task needs none);
 * returns the rows and sets *tasks. */
static int64_t read_tasks(const char* fixture, const char* kind, const char* options, int64_t* tasks) {
  *tasks = 0;
  floe_table* t = open_fixture(fixture);
  if (t == NULL) return -1;
  char* json = NULL;
  floe_status rc = floe_inspect_plan(t, kind, options, &json);
  floe_table_free(t);
  CHECK_OK(rc);
  if (rc != FLOE_OK) return -1;
  char task_options[8192];
  fixture_options(fixture_named(fixture), task_options, sizeof task_options);
  int64_t rows = 0;
  const char *p = json, *start, *end;
  while (next_array_element(&p, &start, &end)) {
    struct ArrowArrayStream stream;
    CHECK_OK(floe_task_stream((const uint8_t*)start, (size_t)(end - start), task_options, &stream));
    if (stream.release != NULL) rows += stream_count_rows(&stream, NULL);
    (*tasks)++;
  }
  floe_string_free(json);
  return rows;
}

/* floe_inspect_plan: every task of the array, read alone with
 * floe_task_stream, together give floe_inspect's rows; a limit bounds each
 * task; kinds without manifest entries are FLOE_UNSUPPORTED. */
void test_inspect_plan(void) {
  static const char* kinds[] = {"files", "data_files", "delete_files", "entries", "all_entries", "all_files"};
  floe_table* t = open_fixture(SIX_SNAPSHOTS);
  if (t == NULL) return;
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    struct inspect_read whole;
    CHECK_OK(read_inspect(t, kinds[k], NULL, &whole));
    int64_t tasks = 0;
    int64_t rows = read_tasks(SIX_SNAPSHOTS, kinds[k], "{\"task_size\": 1}", &tasks);
    CHECK_EQ_I64(rows, whole.rows);
    CHECK(tasks >= 1);
    if (strcmp(kinds[k], "entries") == 0 || strcmp(kinds[k], "all_entries") == 0) CHECK(tasks >= 2);
  }
  /* A limit of 1 is one row from each task (on a table whose manifests
   * hold several entries). */
  int64_t tasks = 0;
  int64_t rows = read_tasks(POSITION_DELETES, "entries", "{\"task_size\": 1}", &tasks);
  CHECK(tasks >= 2 && rows > tasks);
  rows = read_tasks(POSITION_DELETES, "entries", "{\"task_size\": 1, \"limit\": 1}", &tasks);
  CHECK_EQ_I64(rows, tasks);
  /* The default size packs the fixture's small manifests into one task. */
  read_tasks(SIX_SNAPSHOTS, "all_entries", NULL, &tasks);
  CHECK_EQ_I64(tasks, 1);

  char* json = (char*)1;
  CHECK_OK(floe_inspect_plan(t, "files", "{\"limit\": 0}", &json));
  if (json != NULL) CHECK_STR(json, "[]");
  floe_string_free(json);
  CHECK_STATUS(floe_inspect_plan(t, "snapshots", NULL, &json), FLOE_UNSUPPORTED);
  CHECK(json == NULL);
  CHECK_STATUS(floe_inspect_plan(t, "files", "{\"task_size\": -1}", &json), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_inspect_plan(t, "files", NULL, NULL), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_inspect_plan(NULL, "files", NULL, &json), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_inspect_plan(t, NULL, NULL, &json), FLOE_INVALID_ARGUMENT);
  /* A task of a version this floe does not know is refused. */
  static const char future[] = "{\"inspect_version\": 99, \"kind\": \"files\", \"manifests\": [{\"manifest_path\": \"/m.avro\"}]}";
  struct ArrowArrayStream stream;
  CHECK_STATUS(floe_task_stream((const uint8_t*)future, sizeof future - 1, NULL, &stream), FLOE_INVALID_ARGUMENT);
  floe_table_free(t);
}
