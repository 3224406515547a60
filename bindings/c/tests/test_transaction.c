/* floe_table_transaction and floe_table_transaction_preview on a copy of
 * Impala's v3 impala_test_default_part: (i, j) = (1,-1) (2,-1) (3,5)
 * (4,10) (5,NULL), partitioned by j, three snapshots (INDEX.md). Every
 * change is checked by reading the table back. */
#define _XOPEN_SOURCE 700
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arrow_read.h"
#include "harness.h"
#include "test_transaction.h"

static char copy_from[4096], copy_to[4096];

static int copy_entry(const char* path, const struct stat* st, int flag, struct FTW* ftw) {
  (void)ftw;
  char dst[8400];
  snprintf(dst, sizeof dst, "%s%s", copy_to, path + strlen(copy_from));
  if (flag == FTW_D) return mkdir(dst, 0755) == 0 ? 0 : -1;
  if (flag != FTW_F) return 0;
  int in = open(path, O_RDONLY), out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int ok = in >= 0 && out >= 0;
  char buf[65536];
  for (ssize_t n; ok && (n = read(in, buf, sizeof buf)) > 0;) ok = write(out, buf, (size_t)n) == n;
  if (in >= 0) close(in);
  if (out >= 0) close(out);
  (void)st;
  return ok ? 0 : -1;
}

static int remove_entry(const char* path, const struct stat* st, int flag, struct FTW* ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

/* A copy of the fixture in a fresh directory: dir is removed after, the
 * table is <dir>/t. */
static floe_table* copy_fixture(char* dir, size_t n, char* location, size_t ln) {
  const char* tmp = getenv("TMPDIR");
  snprintf(dir, n, "%s/floe-tx-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  CHECK(mkdtemp(dir) != NULL);
  snprintf(location, ln, "%s/t", dir);
  const struct fixture* f = fixture_named("impala_test_default_part");
  fixture_location(f, copy_from, sizeof copy_from);
  snprintf(copy_to, sizeof copy_to, "%s", location);
  CHECK(nftw(copy_from, copy_entry, 16, FTW_PHYS) == 0);
  floe_table* t = NULL;
  CHECK_OK(floe_table_open(location, NULL, &t));
  return t;
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* The base64 text of data (malloc'd): how an action list carries
 * floe_write_files' bytes. */
static char* base64(const uint8_t* data, size_t len) {
  char* out = malloc(4 * ((len + 2) / 3) + 1);
  size_t o = 0;
  for (size_t i = 0; i < len; i += 3) {
    uint32_t v = (uint32_t)data[i] << 16 | (i + 1 < len ? (uint32_t)data[i + 1] << 8 : 0) |
                 (i + 2 < len ? data[i + 2] : 0);
    out[o++] = b64[v >> 18 & 63];
    out[o++] = b64[v >> 12 & 63];
    out[o++] = i + 1 < len ? b64[v >> 6 & 63] : '=';
    out[o++] = i + 2 < len ? b64[v & 63] : '=';
  }
  out[o] = 0;
  return out;
}

/* Rows and the sum of column k (a long, null counted as 0). */
static void scan_k(floe_table* t, int64_t* rows, int64_t* sum_k) {
  *rows = -1, *sum_k = 0;
  floe_scan* s = NULL;
  CHECK_OK(floe_scan_open(t, NULL, &s));
  if (s == NULL) return;
  struct ArrowSchema schema;
  struct ArrowArrayStream stream;
  CHECK_OK(floe_scan_schema(s, &schema));
  CHECK_OK(floe_scan_stream(s, &stream));
  floe_scan_free(s);
  int fk = schema_field(&schema, "k");
  CHECK(fk >= 0);
  *rows = 0;
  for (;;) {
    struct ArrowArray b;
    if (stream.get_next(&stream, &b) != 0 || b.release == NULL) break;
    for (int64_t r = 0; r < b.length && fk >= 0; r++)
      if (!arrow_is_null(b.children[fk], r)) *sum_k += arrow_i64(b.children[fk], r);
    *rows += b.length;
    b.release(&b);
  }
  stream.release(&stream);
  schema.release(&schema);
}

static char* metadata_location(floe_table* t) {
  char* loc = NULL;
  CHECK_OK(floe_table_metadata_location(t, &loc));
  return loc;
}

void test_transaction_schema_and_append(void) {
  char dir[4096], location[4200];
  floe_table* t = copy_fixture(dir, sizeof dir, location, sizeof location);
  if (t == NULL) return;
  const char* evolve =
      "[{\"action\": \"add-column\", \"path\": \"k\", \"type\": \"long\", \"initial-default\": 7},"
      " {\"action\": \"set-properties\", \"updates\": {\"owner\": \"c\"}}]";
  /* The new row holds k: it is bound and written by a preview of the
   * table as the actions leave it. */
  floe_table* preview = NULL;
  CHECK_OK(floe_table_transaction_preview(t, evolve, &preview));
  uint8_t* files = NULL;
  size_t len = 0;
  if (preview != NULL) {
    const char row[] = "{\"i\": 6, \"j\": 5, \"k\": 100}\n";
    struct ArrowArrayStream in;
    CHECK_OK(floe_json_rows_stream(preview, row, strlen(row), &in));
    CHECK_OK(floe_write_files(preview, &in, &files, &len));
    /* A preview never commits. */
    const char again[] = "{\"i\": 7, \"j\": 5, \"k\": 1}\n";
    int64_t id = 0;
    CHECK_OK(floe_json_rows_stream(preview, again, strlen(again), &in));
    CHECK_STATUS(floe_append(preview, &in, NULL, &id), FLOE_INVALID_ARGUMENT);
    CHECK(strstr(floe_last_error(), "preview") != NULL);
  }
  floe_table_free(preview);
  char* before = metadata_location(t);
  if (files != NULL) {
    char* encoded = base64(files, len);
    size_t n = strlen(evolve) + strlen(encoded) + 256;
    char* actions = malloc(n);
    snprintf(actions, n, "%.*s, {\"action\": \"append-files\", \"files\": \"%s\", \"snapshot-properties\": {\"run\": \"c1\"}}]",
             (int)strlen(evolve) - 1, evolve, encoded);
    char* result = NULL;
    CHECK_OK(floe_table_transaction(t, actions, "{\"token\": \"c-step-1\", \"discard_refused\": true}", &result));
    CHECK(result != NULL && strstr(result, "\"committed\":true") != NULL);
    CHECK(result != NULL && strstr(result, "\"current_schema_id\":2") != NULL);
    CHECK(result != NULL && strstr(result, "v7.metadata.json") != NULL);
    floe_string_free(result);
    /* The same token again commits nothing and says so. */
    result = NULL;
    CHECK_OK(floe_table_transaction(t, actions, "{\"token\": \"c-step-1\"}", &result));
    CHECK(result != NULL && strstr(result, "\"token_found\":true") != NULL);
    floe_string_free(result);
    free(actions);
    free(encoded);
  }
  floe_bytes_free(files);
  floe_table* reopened = NULL;
  CHECK_OK(floe_table_open(location, NULL, &reopened));
  if (reopened != NULL) {
    int64_t rows = 0, sum_k = 0;
    scan_k(reopened, &rows, &sum_k);
    CHECK_EQ_I64(rows, 6);
    CHECK_EQ_I64(sum_k, 5 * 7 + 100); /* old rows read the initial default */
    char* md = NULL;
    CHECK_OK(floe_table_metadata_json(reopened, &md));
    CHECK(md != NULL && strstr(md, "\"owner\":\"c\"") != NULL);
    floe_string_free(md);
    char* after = metadata_location(reopened);
    CHECK(before != NULL && after != NULL && strcmp(before, after) != 0);
    floe_string_free(after);
  }
  floe_string_free(before);
  floe_table_free(reopened);
  floe_table_free(t);
  nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void test_transaction_refs_and_spec(void) {
  char dir[4096], location[4200];
  floe_table* t = copy_fixture(dir, sizeof dir, location, sizeof location);
  if (t == NULL) return;
  char* result = NULL;
  CHECK_OK(floe_table_transaction(t,
                                  "[{\"action\": \"create-tag\", \"name\": \"v1\", \"max-ref-age-ms\": 86400000},"
                                  " {\"action\": \"create-branch\", \"name\": \"audit\", \"min-snapshots-to-keep\": 3},"
                                  " {\"action\": \"set-ref-retention\", \"name\": \"audit\", \"max-ref-age-ms\": 604800000},"
                                  " {\"action\": \"add-partition-field\", \"source\": \"i\", \"transform\": \"bucket[4]\"},"
                                  " {\"action\": \"replace-sort-order\", \"fields\": [{\"source\": \"i\", \"direction\": \"desc\"}]}]",
                                  NULL, &result));
  CHECK(result != NULL && strstr(result, "\"v1\":{\"snapshot-id\":") != NULL);
  CHECK(result != NULL && strstr(result, "\"min-snapshots-to-keep\":3") != NULL);
  CHECK(result != NULL && strstr(result, "\"max-ref-age-ms\":604800000") != NULL);
  CHECK(result != NULL && strstr(result, "\"default_spec_id\":2") != NULL);
  CHECK(result != NULL && strstr(result, "\"default_sort_order_id\":1") != NULL);
  CHECK(result != NULL && strstr(result, "\"snapshot_ids\":[]") != NULL);
  floe_string_free(result);
  char* md = NULL;
  CHECK_OK(floe_table_metadata_json(t, &md));
  CHECK(md != NULL && strstr(md, "\"i_bucket_4\"") != NULL);
  floe_string_free(md);
  /* A snapshot that is no ancestor of main is refused, named; nothing
   * changes. */
  char* before = metadata_location(t);
  result = NULL;
  CHECK_STATUS(floe_table_transaction(t, "[{\"action\": \"rollback-to-snapshot\", \"snapshot-id\": 42}]", NULL, &result),
               FLOE_NOT_FOUND);
  CHECK(strstr(floe_last_error(), "42") != NULL);
  CHECK(result == NULL);
  char* after = metadata_location(t);
  CHECK(before != NULL && after != NULL && strcmp(before, after) == 0);
  floe_string_free(before);
  floe_string_free(after);
  floe_table_free(t);
  nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void test_transaction_errors(void) {
  char dir[4096], location[4200];
  floe_table* t = copy_fixture(dir, sizeof dir, location, sizeof location);
  if (t == NULL) return;
  char* result = (char*)1;
  CHECK_STATUS(floe_table_transaction(NULL, "[]", NULL, &result), FLOE_INVALID_ARGUMENT);
  CHECK(result == NULL);
  CHECK_STATUS(floe_table_transaction(t, NULL, NULL, &result), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_table_transaction(t, "[]", NULL, NULL), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_table_transaction(t, "[]", NULL, &result), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_table_transaction(t, "{", NULL, &result), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_table_transaction(t, "[{\"action\": \"rename-colum\", \"path\": \"i\", \"new-name\": \"x\"}]", NULL, &result),
               FLOE_INVALID_ARGUMENT);
  CHECK(strstr(floe_last_error(), "did you mean \"rename-column\"") != NULL);
  CHECK_STATUS(floe_table_transaction(t, "[{\"action\": \"rename-column\", \"path\": \"i\", \"new_name\": \"x\"}]", NULL, &result),
               FLOE_INVALID_ARGUMENT);
  CHECK(strstr(floe_last_error(), "new_name") != NULL);
  CHECK_STATUS(floe_table_transaction(t, "[{\"action\": \"set-properties\", \"updates\": {\"a\": \"b\"}}]",
                                      "{\"tokn\": \"x\"}", &result),
               FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_table_transaction(t, "[{\"action\": \"append-files\", \"files\": \"AAAA\"}]", NULL, &result),
               FLOE_INVALID_ARGUMENT);
  floe_table* preview = (floe_table*)1;
  CHECK_STATUS(floe_table_transaction_preview(t, "[{\"action\": \"delete-column\", \"path\": \"nope\"}]", &preview),
               FLOE_INVALID_ARGUMENT);
  CHECK(preview == NULL);
  /* Two schema changes from one base: the second conflicts, committing
   * nothing. */
  floe_table* other = NULL;
  CHECK_OK(floe_table_open(location, NULL, &other));
  CHECK_OK(floe_table_transaction(t, "[{\"action\": \"add-column\", \"path\": \"a\", \"type\": \"string\"}]", NULL, &result));
  floe_string_free(result);
  result = NULL;
  if (other != NULL) {
    CHECK_STATUS(floe_table_transaction(other, "[{\"action\": \"add-column\", \"path\": \"b\", \"type\": \"string\"}]",
                                        NULL, &result),
                 FLOE_CONFLICT);
    CHECK(result == NULL);
  }
  floe_table_free(other);

  /* An Arrow schema (a scan's) as the Iceberg schema union-by-name takes;
   * the schema is consumed. */
  floe_scan* s = NULL;
  CHECK_OK(floe_scan_open(t, "{\"columns\": [\"j\"]}", &s));
  if (s != NULL) {
    struct ArrowSchema schema;
    CHECK_OK(floe_scan_schema(s, &schema));
    char* json = NULL;
    CHECK_OK(floe_schema_from_arrow(&schema, &json));
    CHECK(schema.release == NULL);
    CHECK(json != NULL && strstr(json, "\"name\":\"j\"") != NULL && strstr(json, "\"name\":\"i\"") == NULL);
    floe_string_free(json);
    json = (char*)1;
    CHECK_STATUS(floe_schema_from_arrow(NULL, &json), FLOE_INVALID_ARGUMENT);
    CHECK(json == NULL);
    CHECK_OK(floe_scan_schema(s, &schema));
    CHECK_STATUS(floe_schema_from_arrow(&schema, NULL), FLOE_INVALID_ARGUMENT);
    CHECK(schema.release == NULL); /* consumed even then */
  }
  floe_scan_free(s);
  floe_table_free(t);
  nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}
