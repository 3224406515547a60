/* floe_catalog_commit_transaction on a SQLite catalog: two tables move
 * together (a property and a column on one, a property on the other); a
 * stale schema change on one commits neither; bad arguments and a
 * filesystem warehouse are refused, nothing committed. */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"
#include "test_catalog_transaction.h"

static const char schema[] =
    "{\"type\": \"struct\", \"schema-id\": 0, \"fields\": ["
    "{\"id\": 1, \"name\": \"i\", \"required\": false, \"type\": \"int\"}]}";

static int remove_entry(const char* path, const struct stat* st, int flag, struct FTW* ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

/* The table's metadata location, as the handle holds it (malloc'd copy). */
static char* location_of(floe_table* t) {
  char* loc = NULL;
  CHECK_OK(floe_table_metadata_location(t, &loc));
  char* out = loc ? strdup(loc) : strdup("");
  floe_string_free(loc);
  return out;
}

/* The table's metadata location as the catalog has it now. */
static char* catalog_location(floe_catalog* cat, const char* name) {
  floe_table* t = NULL;
  CHECK_OK(floe_catalog_load_table(cat, name, &t));
  if (t == NULL) return strdup("");
  char* out = location_of(t);
  floe_table_free(t);
  return out;
}

/* Whether the table's metadata JSON holds needle. */
static int metadata_holds(floe_catalog* cat, const char* name, const char* needle) {
  floe_table* t = NULL;
  CHECK_OK(floe_catalog_load_table(cat, name, &t));
  char* json = NULL;
  if (t != NULL) CHECK_OK(floe_table_metadata_json(t, &json));
  int found = json != NULL && strstr(json, needle) != NULL;
  floe_string_free(json);
  floe_table_free(t);
  return found;
}

void test_catalog_transaction(void) {
  const char* tmp = getenv("TMPDIR");
  char dir[4096], uri[4200], props[8400];
  snprintf(dir, sizeof dir, "%s/floe-multi-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  CHECK(mkdtemp(dir) != NULL);
  snprintf(uri, sizeof uri, "sqlite:%s/catalog.db", dir);
  floe_catalog* cat = NULL;
  CHECK_OK(floe_catalog_open(uri, NULL, &cat));
  if (cat == NULL) return;
  CHECK_OK(floe_catalog_create_namespace(cat, "db", NULL));
  floe_table* tables[2] = {NULL, NULL};
  CHECK_OK(floe_catalog_create_table(cat, "db.a", schema, NULL, &tables[0]));
  CHECK_OK(floe_catalog_create_table(cat, "db.b", schema, NULL, &tables[1]));
  if (tables[0] == NULL || tables[1] == NULL) return;

  /* Together. */
  const char* together =
      "[{\"actions\": [{\"action\": \"set-properties\", \"updates\": {\"batch\": \"c1\"}},"
      "                {\"action\": \"add-column\", \"path\": \"note\", \"type\": \"string\"}]},"
      " {\"actions\": [{\"action\": \"set-properties\", \"updates\": {\"batch\": \"c1\"}}]}]";
  char* result = NULL;
  CHECK_OK(floe_catalog_commit_transaction(cat, tables, 2, together, "{\"timeout_ms\": 60000}", &result));
  CHECK(result != NULL && strstr(result, "{\"tables\":[{\"committed\":true") == result);
  floe_string_free(result);
  for (int k = 0; k < 2; k++) {
    char* held = location_of(tables[k]);
    char* now = catalog_location(cat, k == 0 ? "db.a" : "db.b");
    CHECK_STR(held, now); /* the handles hold the committed versions */
    free(held);
    free(now);
  }
  CHECK(metadata_holds(cat, "db.a", "\"batch\":\"c1\"") && metadata_holds(cat, "db.a", "\"note\""));
  CHECK(metadata_holds(cat, "db.b", "\"batch\":\"c1\""));

  /* A stale schema change on a: another handle changed a's schema first;
   * neither table moves. */
  floe_table* other = NULL;
  CHECK_OK(floe_catalog_load_table(cat, "db.a", &other));
  result = NULL;
  CHECK_OK(floe_table_transaction(other, "[{\"action\": \"add-column\", \"path\": \"theirs\", \"type\": \"int\"}]", NULL,
                                  &result));
  floe_string_free(result);
  floe_table_free(other);
  char* a_before = catalog_location(cat, "db.a");
  char* b_before = catalog_location(cat, "db.b");
  const char* stale =
      "[{\"actions\": [{\"action\": \"add-column\", \"path\": \"mine\", \"type\": \"int\"}]},"
      " {\"actions\": [{\"action\": \"set-properties\", \"updates\": {\"batch\": \"c2\"}}]}]";
  result = NULL;
  CHECK_STATUS(floe_catalog_commit_transaction(cat, tables, 2, stale, NULL, &result), FLOE_CONFLICT);
  CHECK(result == NULL);
  char* a_after = catalog_location(cat, "db.a");
  char* b_after = catalog_location(cat, "db.b");
  CHECK_STR(a_after, a_before);
  CHECK_STR(b_after, b_before);
  CHECK(!metadata_holds(cat, "db.b", "\"batch\":\"c2\""));
  free(a_before), free(b_before), free(a_after), free(b_after);

  /* Refusals: NULLs, one handle twice, a list per table, unknown options. */
  floe_table* twice[2] = {tables[1], tables[1]};
  floe_table* with_null[2] = {tables[0], NULL};
  const char* two = "[{\"actions\": [{\"action\": \"set-properties\", \"updates\": {\"x\": \"1\"}}]},"
                    " {\"actions\": [{\"action\": \"set-properties\", \"updates\": {\"x\": \"2\"}}]}]";
  CHECK_STATUS(floe_catalog_commit_transaction(cat, tables, 2, two, NULL, NULL), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_catalog_commit_transaction(NULL, tables, 2, two, NULL, &result), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_catalog_commit_transaction(cat, NULL, 2, two, NULL, &result), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_catalog_commit_transaction(cat, with_null, 2, two, NULL, &result), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_catalog_commit_transaction(cat, tables, 2, NULL, NULL, &result), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_catalog_commit_transaction(cat, twice, 2, two, NULL, &result), FLOE_INVALID_ARGUMENT);
  CHECK(strstr(floe_last_error(), "same handle") != NULL);
  CHECK_STATUS(floe_catalog_commit_transaction(cat, tables, 1, two, NULL, &result), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_catalog_commit_transaction(cat, tables, 0, "[]", NULL, &result), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_catalog_commit_transaction(cat, tables, 2, two, "{\"tokn\": 1}", &result), FLOE_INVALID_ARGUMENT);
  CHECK(!metadata_holds(cat, "db.a", "\"x\":") && !metadata_holds(cat, "db.b", "\"x\":"));
  floe_table_free(tables[0]);
  floe_table_free(tables[1]);
  floe_catalog_free(cat);

  /* A filesystem warehouse cannot. */
  snprintf(props, sizeof props, "%s/warehouse", dir);
  floe_catalog* wh = NULL;
  CHECK_OK(floe_catalog_open(props, NULL, &wh));
  if (wh != NULL) {
    floe_table* w[2] = {NULL, NULL};
    CHECK_OK(floe_catalog_create_namespace(wh, "db", NULL));
    CHECK_OK(floe_catalog_create_table(wh, "db.a", schema, NULL, &w[0]));
    CHECK_OK(floe_catalog_create_table(wh, "db.b", schema, NULL, &w[1]));
    if (w[0] != NULL && w[1] != NULL) {
      CHECK_STATUS(floe_catalog_commit_transaction(wh, w, 2, two, NULL, &result), FLOE_UNSUPPORTED);
      CHECK(!metadata_holds(wh, "db.a", "\"x\":"));
    }
    floe_table_free(w[0]);
    floe_table_free(w[1]);
    floe_catalog_free(wh);
  }
  nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}
