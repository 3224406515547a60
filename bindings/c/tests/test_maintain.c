/* floe_table_maintain on a table written here: three appends of JSON rows
 * to an unpartitioned table, compacted with a progress callback counting
 * its calls through user_data, then statistics computed; and the calls it
 * refuses. */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "test_maintain.h"

static const char* const schema_ij =
    "{\"type\": \"struct\", \"schema-id\": 0, \"fields\": ["
    "{\"id\": 1, \"name\": \"i\", \"required\": false, \"type\": \"int\"},"
    "{\"id\": 2, \"name\": \"j\", \"required\": false, \"type\": \"int\"}]}";

static int remove_entry(const char* path, const struct stat* st, int flag, struct FTW* ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

/* A table of three one-file appends (i = 0..5, j = i % 2) in a fresh
 * directory, removed by the caller. */
static floe_table* three_appends(char* dir, size_t n) {
  const char* tmp = getenv("TMPDIR");
  snprintf(dir, n, "%s/floe-maintain-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  CHECK(mkdtemp(dir) != NULL);
  char location[4200];
  snprintf(location, sizeof location, "%s/t", dir);
  floe_table* t = NULL;
  CHECK_OK(floe_table_create(location, schema_ij, NULL, &t));
  for (int k = 0; k < 3 && t != NULL; k++) {
    char rows[128];
    snprintf(rows, sizeof rows, "{\"i\": %d, \"j\": 0}\n{\"i\": %d, \"j\": 1}\n", 2 * k, 2 * k + 1);
    struct ArrowArrayStream in;
    CHECK_OK(floe_json_rows_stream(t, rows, strlen(rows), &in));
    int64_t id = 0;
    CHECK_OK(floe_append(t, &in, NULL, &id));
  }
  return t;
}

struct progress_seen {
  int calls;
  char last[512];
};

static void on_progress(const char* progress_json, void* user_data) {
  struct progress_seen* seen = user_data;
  seen->calls++;
  snprintf(seen->last, sizeof seen->last, "%s", progress_json);
}

void test_maintain_compact_and_stats(void) {
  char dir[4096];
  floe_table* t = three_appends(dir, sizeof dir);
  if (t == NULL) return;
  struct progress_seen seen = {0};
  char* result = NULL;
  CHECK_OK(floe_table_maintain(t, "rewrite_data_files", "{\"min_input_files\": 2}", on_progress, &seen, &result));
  CHECK(result != NULL && strstr(result, "\"rewritten_data_files_count\":3") != NULL);
  CHECK(result != NULL && strstr(result, "\"added_data_files_count\":1") != NULL);
  CHECK_EQ_I64(seen.calls, 1);
  CHECK(strstr(seen.last, "\"action\":\"rewrite_data_files\"") != NULL && strstr(seen.last, "\"done\":1") != NULL);
  floe_string_free(result);

  result = NULL;
  CHECK_OK(floe_table_maintain(t, "compute_statistics", NULL, NULL, NULL, &result));
  CHECK(result != NULL && strstr(result, "\"ndv\":{\"i\":6,\"j\":2}") != NULL);
  floe_string_free(result);
  char* md = NULL;
  CHECK_OK(floe_table_metadata_json(t, &md));
  CHECK(md != NULL && strstr(md, "\"statistics\"") != NULL);
  floe_string_free(md);
  floe_table_free(t);
  nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void test_maintain_errors(void) {
  char dir[4096];
  floe_table* t = three_appends(dir, sizeof dir);
  if (t == NULL) return;
  char* result = (char*)1;
  CHECK_STATUS(floe_table_maintain(t, "remove_orphan_files", "{\"dryrun\": true}", NULL, NULL, &result),
               FLOE_INVALID_ARGUMENT);
  CHECK(result == NULL);
  CHECK(strstr(floe_last_error(), "did you mean \"dry_run\"") != NULL);
  CHECK_STATUS(floe_table_maintain(t, "compact", NULL, NULL, NULL, &result), FLOE_INVALID_ARGUMENT);
  CHECK(strstr(floe_last_error(), "unknown action") != NULL);
  CHECK_STATUS(floe_table_maintain(NULL, "rewrite_manifests", NULL, NULL, NULL, &result), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_table_maintain(t, NULL, NULL, NULL, NULL, &result), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_table_maintain(t, "rewrite_manifests", NULL, NULL, NULL, NULL), FLOE_INVALID_ARGUMENT);
  /* A cutoff in 1970: every file is referenced, nothing is deleted. */
  CHECK_STATUS(floe_table_maintain(t, "remove_orphan_files", "{\"older_than_ms\": 1}", NULL, NULL, &result), FLOE_OK);
  floe_string_free(result);
  floe_table_free(t);
  nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}
