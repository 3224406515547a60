/* Writes go in as Arrow C streams. The simplest producer of one is a floe
 * scan: impala_test_default_part holds (i, j) = (1,-1) (2,-1) (3,5) (4,10)
 * (5,NULL) (INDEX.md), so copying it into a new table and reading that
 * back must give those rows again. */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arrow_read.h"
#include "harness.h"
#include "test_write.h"

static const char* const schema_ij =
    "{\"type\": \"struct\", \"schema-id\": 0, \"fields\": ["
    "{\"id\": 1, \"name\": \"i\", \"required\": false, \"type\": \"int\"},"
    "{\"id\": 2, \"name\": \"j\", \"required\": false, \"type\": \"int\"}]}";

static int remove_entry(const char* path, const struct stat* st, int flag, struct FTW* ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

/* A fresh directory; the table goes in <dir>/t. */
static void temp_table(char* dir, size_t n, char* location, size_t ln) {
  const char* tmp = getenv("TMPDIR");
  snprintf(dir, n, "%s/floe-write-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  CHECK(mkdtemp(dir) != NULL);
  snprintf(location, ln, "%s/t", dir);
}

static void remove_tree(const char* dir) { nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

/* A stream of every row of the fixture (stream->release is NULL on
 * failure). */
static void fixture_stream(struct ArrowArrayStream* out) {
  memset(out, 0, sizeof *out);
  floe_table* src = open_fixture("impala_test_default_part");
  if (src == NULL) return;
  floe_scan* s = NULL;
  CHECK_OK(floe_scan_open(src, NULL, &s));
  if (s != NULL) CHECK_OK(floe_scan_stream(s, out));
  floe_scan_free(s);
  floe_table_free(src);
}

/* Rows, the sum of i, the sum of non-null j and the null j count of a
 * table's current snapshot. */
struct ij_totals {
  int64_t rows, sum_i, sum_j, null_j;
};

static struct ij_totals scan_totals(floe_table* t) {
  struct ij_totals tot = {-1, 0, 0, 0};
  floe_scan* s = NULL;
  CHECK_OK(floe_scan_open(t, NULL, &s));
  if (s == NULL) return tot;
  struct ArrowSchema schema;
  struct ArrowArrayStream stream;
  CHECK_OK(floe_scan_schema(s, &schema));
  CHECK_OK(floe_scan_stream(s, &stream));
  floe_scan_free(s);
  if (stream.release == NULL || schema.release == NULL) return tot;
  int fi = schema_field(&schema, "i"), fj = schema_field(&schema, "j");
  CHECK(fi >= 0 && fj >= 0);
  tot.rows = 0;
  for (;;) {
    struct ArrowArray b;
    if (stream.get_next(&stream, &b) != 0) {
      fprintf(stderr, "get_next: %s\n", stream.get_last_error(&stream));
      CHECK(!"get_next failed");
      tot.rows = -1;
      break;
    }
    if (b.release == NULL) break;
    for (int64_t r = 0; r < b.length && fi >= 0 && fj >= 0; r++) {
      tot.sum_i += arrow_i32(b.children[fi], r);
      if (arrow_is_null(b.children[fj], r))
        tot.null_j++;
      else
        tot.sum_j += arrow_i32(b.children[fj], r);
    }
    tot.rows += b.length;
    b.release(&b);
  }
  stream.release(&stream);
  schema.release(&schema);
  return tot;
}

#define CHECK_TOTALS(t, copies)                             \
  do {                                                      \
    struct ij_totals tot_ = scan_totals(t);                 \
    CHECK_EQ_I64(tot_.rows, 5 * (copies));                  \
    CHECK_EQ_I64(tot_.sum_i, 15 * (copies));                /* 1+2+3+4+5 */ \
    CHECK_EQ_I64(tot_.sum_j, 13 * (copies));                /* -1-1+5+10 */ \
    CHECK_EQ_I64(tot_.null_j, 1 * (copies));                \
  } while (0)

void test_write_append_roundtrip(void) {
  char dir[4096], location[4200];
  temp_table(dir, sizeof dir, location, sizeof location);
  floe_table* t = NULL;
  CHECK_OK(floe_table_create(location, schema_ij, "{\"partition_by\": [{\"column\": \"j\"}]}", &t));
  if (t == NULL) {
    remove_tree(dir);
    return;
  }
  /* A second create of the same table is refused. */
  floe_table* again = NULL;
  CHECK_STATUS(floe_table_create(location, schema_ij, NULL, &again), FLOE_CONFLICT);
  CHECK(again == NULL);
  CHECK_EQ_I64(scan_totals(t).rows, 0);

  struct ArrowArrayStream in;
  fixture_stream(&in);
  int64_t first = 0;
  CHECK_OK(floe_append(t, &in, "{\"token\": \"run-1/step-1\", \"properties\": {\"pipeline\": \"c-test\"}}", &first));
  CHECK(in.release == NULL); /* consumed */
  CHECK(first != 0);
  CHECK_TOTALS(t, 1);

  /* The table on disk, opened afresh, says the same. */
  floe_table* reopened = NULL;
  CHECK_OK(floe_table_open(location, NULL, &reopened));
  if (reopened != NULL) {
    CHECK_TOTALS(reopened, 1);
    char* md = NULL;
    CHECK_OK(floe_table_metadata_json(reopened, &md));
    CHECK(md != NULL && strstr(md, "\"floe.commit-token\":\"run-1/step-1\"") != NULL);
    CHECK(md != NULL && strstr(md, "\"pipeline\":\"c-test\"") != NULL);
    floe_string_free(md);

    /* A retried step (same token), even through another handle, commits
     * nothing and gets the first commit's id. */
    fixture_stream(&in);
    int64_t retried = 0;
    CHECK_OK(floe_append(reopened, &in, "{\"token\": \"run-1/step-1\"}", &retried));
    CHECK_EQ_I64(retried, first);
    CHECK_TOTALS(reopened, 1);
    floe_table_free(reopened);
  }

  /* Another step appends the rows again. */
  fixture_stream(&in);
  int64_t second = 0;
  CHECK_OK(floe_append(t, &in, "{\"token\": \"run-1/step-2\"}", &second));
  CHECK(second != first && second != 0);
  CHECK_TOTALS(t, 2);

  /* Replacing partitions: every partition (j = -1, 5, 10, null) gets the
   * new rows only. */
  fixture_stream(&in);
  int64_t replaced = 0;
  CHECK_OK(floe_replace_partitions(t, &in, "{\"token\": \"run-1/step-3\"}", &replaced));
  CHECK(replaced != second && replaced != 0);
  CHECK_TOTALS(t, 1);

  /* Expiring all but the newest snapshot keeps the rows. */
  char* result = NULL;
  CHECK_OK(floe_expire_snapshots(t, "{\"older_than_ms\": 9000000000000, \"retain_last\": 1}", &result));
  CHECK(result != NULL && strstr(result, "\"expired_snapshots\":[") != NULL);
  CHECK(result != NULL && strstr(result, "\"deleted_files\":[\"") != NULL);
  floe_string_free(result);
  CHECK_TOTALS(t, 1);

  floe_table_free(t);
  remove_tree(dir);
}

void test_write_files_and_commit(void) {
  char dir[4096], location[4200];
  temp_table(dir, sizeof dir, location, sizeof location);
  floe_table* t = NULL;
  CHECK_OK(floe_table_create(location, schema_ij, "{\"format_version\": 3}", &t));
  if (t == NULL) {
    remove_tree(dir);
    return;
  }
  /* A worker writes files; the committing side (here another handle)
   * commits them from the bytes. */
  struct ArrowArrayStream in;
  fixture_stream(&in);
  uint8_t* files = NULL;
  size_t len = 0;
  CHECK_OK(floe_write_files(t, &in, &files, &len));
  CHECK(in.release == NULL);
  CHECK(files != NULL && len > 0);
  CHECK_EQ_I64(scan_totals(t).rows, 0); /* written, not committed */

  floe_table* committer = NULL;
  CHECK_OK(floe_table_open(location, NULL, &committer));
  int64_t id = 0, again = 0;
  if (committer != NULL && files != NULL) {
    CHECK_OK(floe_append_files(committer, files, len, "{\"token\": \"files-1\"}", &id));
    CHECK(id != 0);
    CHECK_OK(floe_append_files(committer, files, len, "{\"token\": \"files-1\"}", &again));
    CHECK_EQ_I64(again, id);
    CHECK_TOTALS(committer, 1);

    /* Removing a file the table does not have commits nothing. */
    int64_t none = 0;
    CHECK_STATUS(floe_commit(committer, NULL, 0, "[\"/no/such/file.parquet\"]", NULL, &none), FLOE_CONFLICT);
    CHECK_TOTALS(committer, 1);

    /* Garbage in place of files is refused. */
    const uint8_t junk[] = {1, 2, 3, 4};
    CHECK_STATUS(floe_append_files(committer, junk, sizeof junk, NULL, &none), FLOE_INVALID_ARGUMENT);

    /* Files a snapshot took are never discarded; NULLs are refused. */
    CHECK_STATUS(floe_discard_files(committer, files, len), FLOE_CONFLICT);
    CHECK_STATUS(floe_discard_files(NULL, files, len), FLOE_INVALID_ARGUMENT);
    CHECK_STATUS(floe_discard_files(committer, NULL, 0), FLOE_INVALID_ARGUMENT);
    CHECK_STATUS(floe_discard_files(committer, junk, sizeof junk), FLOE_INVALID_ARGUMENT);
    CHECK_TOTALS(committer, 1);
  }
  floe_bytes_free(files);

  /* Files no commit took are discarded, and discarding them again is
   * fine; the table is unchanged. */
  fixture_stream(&in);
  files = NULL;
  CHECK_OK(floe_write_files(t, &in, &files, &len));
  if (committer != NULL && files != NULL) {
    CHECK_OK(floe_discard_files(committer, files, len));
    CHECK_OK(floe_discard_files(committer, files, len));
    CHECK_TOTALS(committer, 1);
  }
  floe_bytes_free(files);

  /* floe_commit with only additions is an append of them. */
  fixture_stream(&in);
  files = NULL;
  CHECK_OK(floe_write_files(t, &in, &files, &len));
  if (committer != NULL && files != NULL) {
    int64_t third = 0;
    CHECK_OK(floe_commit(committer, files, len, "[]", "{\"token\": \"files-2\"}", &third));
    CHECK(third != id && third != 0);
    CHECK_TOTALS(committer, 2);
  }
  floe_bytes_free(files);
  floe_table_free(committer);
  floe_table_free(t);
  remove_tree(dir);
}

void test_write_errors(void) {
  char dir[4096], location[4200];
  temp_table(dir, sizeof dir, location, sizeof location);
  floe_table* t = NULL;
  CHECK_STATUS(floe_table_create(location, "{\"type\": \"struct\", \"fields\": [", NULL, &t), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_table_create(location, schema_ij, "{\"partitions\": []}", &t), FLOE_INVALID_ARGUMENT);
  CHECK(strstr(floe_last_error(), "partitions") != NULL);
  CHECK_STATUS(floe_table_create(location, schema_ij, "{\"partition_by\": [{\"column\": \"nope\"}]}", &t),
               FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_table_create(NULL, schema_ij, NULL, &t), FLOE_INVALID_ARGUMENT);
  CHECK_OK(floe_table_create(location, schema_ij, NULL, &t));

  /* Every refused call still releases the stream it was given. */
  struct ArrowArrayStream in;
  int64_t id = 0;
  fixture_stream(&in);
  CHECK_STATUS(floe_append(NULL, &in, NULL, &id), FLOE_INVALID_ARGUMENT);
  CHECK(in.release == NULL);
  fixture_stream(&in);
  CHECK_STATUS(floe_append(t, &in, "{\"tokn\": \"x\"}", &id), FLOE_INVALID_ARGUMENT);
  CHECK(in.release == NULL);
  CHECK(strstr(floe_last_error(), "floe_append") != NULL);
  fixture_stream(&in);
  CHECK_STATUS(floe_append(t, &in, "{\"properties\": {\"operation\": \"delete\"}}", &id), FLOE_INVALID_ARGUMENT);
  CHECK(in.release == NULL);
  fixture_stream(&in);
  CHECK_STATUS(floe_replace_partitions(t, &in, NULL, NULL), FLOE_INVALID_ARGUMENT);
  CHECK(in.release == NULL);
  uint8_t* files = NULL;
  size_t len = 0;
  fixture_stream(&in);
  CHECK_STATUS(floe_write_files(t, &in, NULL, &len), FLOE_INVALID_ARGUMENT);
  CHECK(in.release == NULL);
  CHECK_STATUS(floe_write_files(t, NULL, &files, &len), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_append(t, NULL, NULL, &id), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_expire_snapshots(t, "{\"retain_last\": 0}", NULL), FLOE_INVALID_ARGUMENT);
  char* result = NULL;
  CHECK_STATUS(floe_expire_snapshots(t, "{\"retain_last\": 0}", &result), FLOE_INVALID_ARGUMENT);
  CHECK(result == NULL);
  CHECK_STATUS(floe_commit(t, NULL, 0, "{\"not\": \"an array\"}", NULL, &id), FLOE_INVALID_ARGUMENT);
  /* None of that committed anything. */
  CHECK_EQ_I64(scan_totals(t).rows, 0);
  floe_table_free(t);
  /* A freed handle is refused, and the stream released. */
  fixture_stream(&in);
  CHECK_STATUS(floe_append(t, &in, NULL, &id), FLOE_INVALID_ARGUMENT);
  CHECK(in.release == NULL);
  remove_tree(dir);
}

/* The fixture's rows, written by hand as JSON lines, in one append. */
static void append_fixture_rows(floe_table* t) {
  const char rows[] = "{\"i\": 1, \"j\": -1}\n{\"i\": 2, \"j\": -1}\n{\"i\": 3, \"j\": 5}\n"
                      "{\"i\": 4, \"j\": 10}\n{\"i\": 5}\n";
  struct ArrowArrayStream in;
  CHECK_OK(floe_json_rows_stream(t, rows, strlen(rows), &in));
  int64_t id = 0;
  CHECK_OK(floe_append(t, &in, NULL, &id));
}

void test_write_json_rows(void) {
  char dir[4096], location[4200];
  temp_table(dir, sizeof dir, location, sizeof location);
  floe_table* t = NULL;
  CHECK_OK(floe_table_create(location, schema_ij, "{\"partition_by\": [{\"column\": \"j\", \"transform\": \"bucket[4]\"}]}", &t));
  if (t == NULL) {
    remove_tree(dir);
    return;
  }
  append_fixture_rows(t);
  CHECK_TOTALS(t, 1);
  /* A row that does not fit the schema is refused at once. */
  struct ArrowArrayStream in;
  const char bad[] = "{\"i\": \"one\"}\n";
  CHECK_STATUS(floe_json_rows_stream(t, bad, strlen(bad), &in), FLOE_INVALID_ARGUMENT);
  CHECK(in.release == NULL);
  floe_table_free(t);
  remove_tree(dir);
}

/* Row-level deletes and overwrites by filter, in both delete modes; the
 * expected totals follow from the fixture's five rows by hand. */
void test_write_delete_rows(void) {
  const char* modes[] = {"{\"delete_mode\": \"copy-on-write\"}", "{\"delete_mode\": \"merge-on-read\"}"};
  for (int m = 0; m < 2; m++) {
    char dir[4096], location[4200];
    temp_table(dir, sizeof dir, location, sizeof location);
    floe_table* t = NULL;
    CHECK_OK(floe_table_create(location, schema_ij, "{\"format_version\": 3}", &t));
    if (t == NULL) {
      remove_tree(dir);
      continue;
    }
    struct ArrowArrayStream in;
    fixture_stream(&in);
    int64_t id = 0, deleted = 0, again = 0;
    CHECK_OK(floe_append(t, &in, NULL, &id));
    /* j < 0 selects (1,-1) and (2,-1); the null j is not selected. */
    CHECK_OK(floe_delete_rows(t, "j < 0", modes[m], &deleted));
    CHECK(deleted != id);
    struct ij_totals tot = scan_totals(t);
    CHECK_EQ_I64(tot.rows, 3);
    CHECK_EQ_I64(tot.sum_i, 12);
    CHECK_EQ_I64(tot.sum_j, 15);
    CHECK_EQ_I64(tot.null_j, 1);
    /* Nothing matches: nothing is committed, the current id comes back. */
    CHECK_OK(floe_delete_rows(t, "i > 100", NULL, &again));
    CHECK_EQ_I64(again, deleted);
    /* Overwrite i = 5 (the null j) with (50, 7). */
    const char rows[] = "{\"i\": 50, \"j\": 7}\n";
    CHECK_OK(floe_json_rows_stream(t, rows, strlen(rows), &in));
    CHECK_OK(floe_overwrite(t, "{\"type\": \"eq\", \"term\": \"i\", \"value\": 5}", &in, modes[m], &id));
    tot = scan_totals(t);
    CHECK_EQ_I64(tot.rows, 3);
    CHECK_EQ_I64(tot.sum_i, 57);
    CHECK_EQ_I64(tot.sum_j, 22);
    CHECK_EQ_I64(tot.null_j, 0);
    CHECK_STATUS(floe_delete_rows(t, "no_such = 1", NULL, &id), FLOE_INVALID_ARGUMENT);
    CHECK_STATUS(floe_delete_rows(t, "i = 1", "{\"delete_mode\": \"sideways\"}", &id), FLOE_INVALID_ARGUMENT);
    floe_table_free(t);
    remove_tree(dir);
  }
}

/* A table in a SQLite catalog: created, appended, loaded again through a
 * second catalog handle, listed, renamed; a table outlives the catalog
 * handle it came from and still commits through it; what is missing is
 * FLOE_NOT_FOUND and what exists FLOE_CONFLICT. */
void test_write_catalog(void) {
  char dir[4096], location[4200], uri[4300];
  temp_table(dir, sizeof dir, location, sizeof location);
  snprintf(uri, sizeof uri, "sqlite:%s/catalog.db", dir);
  floe_catalog* cat = NULL;
  CHECK_OK(floe_catalog_open(uri, "{\"name\": \"c_tests\"}", &cat));
  if (cat == NULL) {
    remove_tree(dir);
    return;
  }
  floe_table* t = NULL;
  CHECK_STATUS(floe_catalog_create_table(cat, "db.t", schema_ij, NULL, &t), FLOE_NOT_FOUND); /* no namespace yet */
  CHECK_OK(floe_catalog_create_namespace(cat, "db", "{\"owner\": \"c\"}"));
  CHECK_STATUS(floe_catalog_create_namespace(cat, "db", NULL), FLOE_CONFLICT);
  CHECK_OK(floe_catalog_create_table(cat, "db.t", schema_ij, "{\"partition_by\": [{\"column\": \"j\"}]}", &t));
  if (t == NULL) {
    floe_catalog_free(cat);
    remove_tree(dir);
    return;
  }
  append_fixture_rows(t);
  floe_table_free(t);

  /* A second handle, the URI given as a property. */
  char props[4500];
  snprintf(props, sizeof props, "{\"uri\": \"%s\", \"name\": \"c_tests\"}", uri);
  floe_catalog* other = NULL;
  CHECK_OK(floe_catalog_open(NULL, props, &other));
  floe_table* loaded = NULL;
  CHECK_OK(floe_catalog_load_table(other, "db.t", &loaded));
  CHECK_TOTALS(loaded, 1);

  char* json = NULL;
  CHECK_OK(floe_catalog_list_tables(other, "db", &json));
  CHECK(json != NULL && strcmp(json, "[[\"db\",\"t\"]]") == 0);
  floe_string_free(json);
  CHECK_OK(floe_catalog_list_namespaces(other, NULL, &json));
  CHECK(json != NULL && strcmp(json, "[[\"db\"]]") == 0);
  floe_string_free(json);
  CHECK_OK(floe_catalog_namespace_properties(other, "db", &json));
  CHECK(json != NULL && strcmp(json, "{\"owner\":\"c\"}") == 0);
  floe_string_free(json);

  /* The table keeps its catalog open after the handle is freed. */
  CHECK_OK(floe_catalog_free(other));
  append_fixture_rows(loaded);
  CHECK_TOTALS(loaded, 2);
  floe_table_free(loaded);

  int exists = -1;
  CHECK_OK(floe_catalog_exists(cat, "db.t", 1, &exists));
  CHECK(exists == 1);
  CHECK_OK(floe_catalog_exists(cat, "nope", 0, &exists));
  CHECK(exists == 0);
  CHECK_STATUS(floe_catalog_drop_namespace(cat, "db"), FLOE_CONFLICT);
  CHECK_OK(floe_catalog_rename_table(cat, "db.t", "db.u"));
  CHECK_STATUS(floe_catalog_load_table(cat, "db.t", &t), FLOE_NOT_FOUND);
  CHECK(t == NULL);
  CHECK_OK(floe_catalog_load_table(cat, "db.u", &t));
  CHECK_TOTALS(t, 2);
  floe_table_free(t);
  CHECK_STATUS(floe_catalog_load_table(cat, "no_namespace_dot", &t), FLOE_INVALID_ARGUMENT);
  CHECK_OK(floe_catalog_drop_table(cat, "db.u", 0));
  CHECK_OK(floe_catalog_drop_namespace(cat, "db"));
  CHECK_STATUS(floe_catalog_open("mysql://x", NULL, &other), FLOE_INVALID_ARGUMENT);
  CHECK(other == NULL);
  floe_catalog_free(cat);
  remove_tree(dir);
}

/* floe_add_files registers the Parquet files one table wrote in another
 * without rewriting them; a retry with its token adds nothing, a file the
 * table has is FLOE_CONFLICT, and bad arguments are refused. */
void test_write_add_files(void) {
  char dir[4096], location[4200], other[4200];
  temp_table(dir, sizeof dir, location, sizeof location);
  snprintf(other, sizeof other, "%s/u", dir);
  floe_table* src = NULL;
  CHECK_OK(floe_table_create(location, schema_ij, NULL, &src));
  if (src == NULL) {
    remove_tree(dir);
    return;
  }
  append_fixture_rows(src);
  /* The data files src wrote, as a JSON array of paths. */
  char data_dir[4300], paths[8192] = "[";
  snprintf(data_dir, sizeof data_dir, "%s/data", location);
  DIR* d = opendir(data_dir);
  CHECK(d != NULL);
  int files = 0;
  for (struct dirent* e; d != NULL && (e = readdir(d)) != NULL;) {
    size_t len = strlen(e->d_name);
    if (len < 8 || strcmp(e->d_name + len - 8, ".parquet") != 0) continue;
    size_t used = strlen(paths);
    snprintf(paths + used, sizeof paths - used, "%s\"%s/%s\"", files ? ", " : "", data_dir, e->d_name);
    files++;
  }
  if (d != NULL) closedir(d);
  strncat(paths, "]", sizeof paths - strlen(paths) - 1);
  CHECK(files >= 1);

  floe_table* dst = NULL;
  CHECK_OK(floe_table_create(other, schema_ij, NULL, &dst));
  int64_t id = 0, again = 0;
  CHECK_OK(floe_add_files(dst, paths, "{\"token\": \"add-1\"}", &id));
  CHECK(id != 0);
  CHECK_TOTALS(dst, 1);
  /* floe_scan_count: from the manifests without a filter, by reading
   * with one. */
  floe_scan* s = NULL;
  int64_t rows = -1;
  CHECK_OK(floe_scan_open(dst, NULL, &s));
  CHECK_OK(floe_scan_count(s, &rows));
  CHECK_EQ_I64(rows, 5);
  floe_scan_free(s);
  CHECK_OK(floe_scan_open(dst, "{\"filter\": \"i > 3\"}", &s));
  CHECK_OK(floe_scan_count(s, &rows));
  CHECK_EQ_I64(rows, 2);
  floe_scan_free(s);
  CHECK_STATUS(floe_scan_count(NULL, &rows), FLOE_INVALID_ARGUMENT);
  CHECK_OK(floe_add_files(dst, paths, "{\"token\": \"add-1\"}", &again));
  CHECK_EQ_I64(again, id);
  CHECK_STATUS(floe_add_files(dst, paths, NULL, &again), FLOE_CONFLICT);
  CHECK_STATUS(floe_add_files(dst, "[]", NULL, &again), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_add_files(dst, "{not json", NULL, &again), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_add_files(dst, NULL, NULL, &again), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_add_files(NULL, paths, NULL, &again), FLOE_INVALID_ARGUMENT);
  CHECK_TOTALS(dst, 1);
  floe_table_free(dst);
  floe_table_free(src);
  remove_tree(dir);
}
