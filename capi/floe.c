// The public entry points of include/floe.h. Each one clears the thread's
// error, checks the pointers it was given, and calls the Go function that
// does the work. Handles cross into Go as integers (runtime/cgo.Handle
// values), never as pointers, so a bogus or freed handle is a lookup that
// fails in Go rather than a dereference here.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "_cgo_export.h"
#include "capi.h"

static floe_status fail(floe_status code, const char* msg) {
  capi_set_error(msg, strlen(msg));
  return code;
}

#define REQUIRE(cond, fn, what) \
  if (!(cond)) return fail(FLOE_INVALID_ARGUMENT, fn ": " what " is NULL")

const char* floe_version(void) { return FLOE_VERSION_STRING; }

const char* floe_status_name(int status) {
  switch (status) {
    case FLOE_OK: return "FLOE_OK";
    case FLOE_INVALID_ARGUMENT: return "FLOE_INVALID_ARGUMENT";
    case FLOE_NOT_FOUND: return "FLOE_NOT_FOUND";
    case FLOE_IO: return "FLOE_IO";
    case FLOE_FORMAT: return "FLOE_FORMAT";
    case FLOE_UNSUPPORTED: return "FLOE_UNSUPPORTED";
    case FLOE_CONFLICT: return "FLOE_CONFLICT";
    case FLOE_INTERNAL: return "FLOE_INTERNAL";
    case FLOE_COMMIT_STATE_UNKNOWN: return "FLOE_COMMIT_STATE_UNKNOWN";
    case FLOE_UNAUTHORIZED: return "FLOE_UNAUTHORIZED";
    case FLOE_CANCELLED: return "FLOE_CANCELLED";
    case FLOE_TIMEOUT: return "FLOE_TIMEOUT";
  }
  return "FLOE_UNKNOWN_STATUS";
}

void floe_string_free(char* s) { free(s); }

void floe_bytes_free(uint8_t* bytes) { free(bytes); }

void floe_release_cached_memory(void) { capiReleaseCachedMemory(); }

floe_status floe_table_open(const char* location, const char* options_json, floe_table** out) {
  capi_clear_error();
  REQUIRE(out != NULL, "floe_table_open", "out");
  *out = NULL;
  REQUIRE(location != NULL, "floe_table_open", "location");
  uintptr_t handle = 0;
  floe_status rc = capiTableOpen((char*)location, (char*)options_json, &handle);
  if (rc == FLOE_OK) *out = (floe_table*)handle;
  return rc;
}

floe_status floe_table_metadata_json(floe_table* table, char** out) {
  capi_clear_error();
  REQUIRE(out != NULL, "floe_table_metadata_json", "out");
  *out = NULL;
  REQUIRE(table != NULL, "floe_table_metadata_json", "table");
  return capiTableMetadataJSON((uintptr_t)table, out);
}

floe_status floe_table_metadata_location(floe_table* table, char** out) {
  capi_clear_error();
  REQUIRE(out != NULL, "floe_table_metadata_location", "out");
  *out = NULL;
  REQUIRE(table != NULL, "floe_table_metadata_location", "table");
  return capiTableMetadataLocation((uintptr_t)table, out);
}

floe_status floe_table_progress(floe_table* table, char** json_out) {
  capi_clear_error();
  REQUIRE(json_out != NULL, "floe_table_progress", "json_out");
  *json_out = NULL;
  REQUIRE(table != NULL, "floe_table_progress", "table");
  return capiTableProgress((uintptr_t)table, json_out);
}

floe_status floe_table_free(floe_table* table) {
  capi_clear_error();
  if (table == NULL) return FLOE_OK;
  return capiTableFree((uintptr_t)table);
}

floe_status floe_catalog_open(const char* uri, const char* properties_json, floe_catalog** out) {
  capi_clear_error();
  REQUIRE(out != NULL, "floe_catalog_open", "out");
  *out = NULL;
  uintptr_t handle = 0;
  floe_status rc = capiCatalogOpen((char*)uri, (char*)properties_json, &handle);
  if (rc == FLOE_OK) *out = (floe_catalog*)handle;
  return rc;
}

floe_status floe_catalog_free(floe_catalog* catalog) {
  capi_clear_error();
  if (catalog == NULL) return FLOE_OK;
  return capiCatalogFree((uintptr_t)catalog);
}

floe_status floe_catalog_load_table(floe_catalog* catalog, const char* name, floe_table** out) {
  capi_clear_error();
  REQUIRE(out != NULL, "floe_catalog_load_table", "out");
  *out = NULL;
  REQUIRE(catalog != NULL, "floe_catalog_load_table", "catalog");
  REQUIRE(name != NULL, "floe_catalog_load_table", "name");
  uintptr_t handle = 0;
  floe_status rc = capiCatalogLoadTable((uintptr_t)catalog, (char*)name, &handle);
  if (rc == FLOE_OK) *out = (floe_table*)handle;
  return rc;
}

floe_status floe_catalog_create_table(floe_catalog* catalog, const char* name, const char* schema_json,
                                      const char* options_json, floe_table** out) {
  capi_clear_error();
  REQUIRE(out != NULL, "floe_catalog_create_table", "out");
  *out = NULL;
  REQUIRE(catalog != NULL, "floe_catalog_create_table", "catalog");
  REQUIRE(name != NULL, "floe_catalog_create_table", "name");
  REQUIRE(schema_json != NULL, "floe_catalog_create_table", "schema_json");
  uintptr_t handle = 0;
  floe_status rc = capiCatalogCreateTable((uintptr_t)catalog, (char*)name, (char*)schema_json, (char*)options_json, &handle);
  if (rc == FLOE_OK) *out = (floe_table*)handle;
  return rc;
}

floe_status floe_catalog_register_table(floe_catalog* catalog, const char* name, const char* metadata_location,
                                        floe_table** out) {
  capi_clear_error();
  REQUIRE(out != NULL, "floe_catalog_register_table", "out");
  *out = NULL;
  REQUIRE(catalog != NULL, "floe_catalog_register_table", "catalog");
  REQUIRE(name != NULL, "floe_catalog_register_table", "name");
  REQUIRE(metadata_location != NULL, "floe_catalog_register_table", "metadata_location");
  uintptr_t handle = 0;
  floe_status rc = capiCatalogRegisterTable((uintptr_t)catalog, (char*)name, (char*)metadata_location, &handle);
  if (rc == FLOE_OK) *out = (floe_table*)handle;
  return rc;
}

floe_status floe_catalog_drop_table(floe_catalog* catalog, const char* name, int purge) {
  capi_clear_error();
  REQUIRE(catalog != NULL, "floe_catalog_drop_table", "catalog");
  REQUIRE(name != NULL, "floe_catalog_drop_table", "name");
  return capiCatalogDropTable((uintptr_t)catalog, (char*)name, purge);
}

floe_status floe_catalog_rename_table(floe_catalog* catalog, const char* from, const char* to) {
  capi_clear_error();
  REQUIRE(catalog != NULL, "floe_catalog_rename_table", "catalog");
  REQUIRE(from != NULL, "floe_catalog_rename_table", "from");
  REQUIRE(to != NULL, "floe_catalog_rename_table", "to");
  return capiCatalogRenameTable((uintptr_t)catalog, (char*)from, (char*)to);
}

floe_status floe_catalog_list_tables(floe_catalog* catalog, const char* namespace_, char** out_json) {
  capi_clear_error();
  REQUIRE(out_json != NULL, "floe_catalog_list_tables", "out_json");
  *out_json = NULL;
  REQUIRE(catalog != NULL, "floe_catalog_list_tables", "catalog");
  REQUIRE(namespace_ != NULL, "floe_catalog_list_tables", "namespace");
  return capiCatalogListTables((uintptr_t)catalog, (char*)namespace_, out_json);
}

floe_status floe_catalog_create_namespace(floe_catalog* catalog, const char* namespace_, const char* properties_json) {
  capi_clear_error();
  REQUIRE(catalog != NULL, "floe_catalog_create_namespace", "catalog");
  REQUIRE(namespace_ != NULL, "floe_catalog_create_namespace", "namespace");
  return capiCatalogCreateNamespace((uintptr_t)catalog, (char*)namespace_, (char*)properties_json);
}

floe_status floe_catalog_drop_namespace(floe_catalog* catalog, const char* namespace_) {
  capi_clear_error();
  REQUIRE(catalog != NULL, "floe_catalog_drop_namespace", "catalog");
  REQUIRE(namespace_ != NULL, "floe_catalog_drop_namespace", "namespace");
  return capiCatalogDropNamespace((uintptr_t)catalog, (char*)namespace_);
}

floe_status floe_catalog_list_namespaces(floe_catalog* catalog, const char* parent, char** out_json) {
  capi_clear_error();
  REQUIRE(out_json != NULL, "floe_catalog_list_namespaces", "out_json");
  *out_json = NULL;
  REQUIRE(catalog != NULL, "floe_catalog_list_namespaces", "catalog");
  return capiCatalogListNamespaces((uintptr_t)catalog, (char*)parent, out_json);
}

floe_status floe_catalog_namespace_properties(floe_catalog* catalog, const char* namespace_, char** out_json) {
  capi_clear_error();
  REQUIRE(out_json != NULL, "floe_catalog_namespace_properties", "out_json");
  *out_json = NULL;
  REQUIRE(catalog != NULL, "floe_catalog_namespace_properties", "catalog");
  REQUIRE(namespace_ != NULL, "floe_catalog_namespace_properties", "namespace");
  return capiCatalogNamespaceProperties((uintptr_t)catalog, (char*)namespace_, out_json);
}

floe_status floe_catalog_update_namespace_properties(floe_catalog* catalog, const char* namespace_,
                                                     const char* removals_json, const char* updates_json) {
  capi_clear_error();
  REQUIRE(catalog != NULL, "floe_catalog_update_namespace_properties", "catalog");
  REQUIRE(namespace_ != NULL, "floe_catalog_update_namespace_properties", "namespace");
  return capiCatalogUpdateNamespaceProperties((uintptr_t)catalog, (char*)namespace_, (char*)removals_json,
                                              (char*)updates_json);
}

floe_status floe_catalog_exists(floe_catalog* catalog, const char* name, int is_table, int* exists) {
  capi_clear_error();
  REQUIRE(exists != NULL, "floe_catalog_exists", "exists");
  *exists = 0;
  REQUIRE(catalog != NULL, "floe_catalog_exists", "catalog");
  REQUIRE(name != NULL, "floe_catalog_exists", "name");
  return capiCatalogExists((uintptr_t)catalog, (char*)name, is_table, exists);
}

floe_status floe_scan_open(floe_table* table, const char* scan_json, floe_scan** out) {
  capi_clear_error();
  REQUIRE(out != NULL, "floe_scan_open", "out");
  *out = NULL;
  REQUIRE(table != NULL, "floe_scan_open", "table");
  uintptr_t handle = 0;
  floe_status rc = capiScanOpen((uintptr_t)table, (char*)scan_json, &handle);
  if (rc == FLOE_OK) *out = (floe_scan*)handle;
  return rc;
}

// Arrow structures are zeroed before Go writes pointers into them: Go's
// write barrier may inspect the old contents of a pointer field.
floe_status floe_scan_schema(floe_scan* scan, struct ArrowSchema* out) {
  capi_clear_error();
  REQUIRE(out != NULL, "floe_scan_schema", "out");
  memset(out, 0, sizeof *out);
  REQUIRE(scan != NULL, "floe_scan_schema", "scan");
  return capiScanSchema((uintptr_t)scan, out);
}

floe_status floe_scan_plan(floe_scan* scan, int64_t* task_count) {
  capi_clear_error();
  REQUIRE(task_count != NULL, "floe_scan_plan", "task_count");
  *task_count = 0;
  REQUIRE(scan != NULL, "floe_scan_plan", "scan");
  return capiScanPlan((uintptr_t)scan, task_count);
}

floe_status floe_scan_count(floe_scan* scan, int64_t* rows) {
  capi_clear_error();
  REQUIRE(rows != NULL, "floe_scan_count", "rows");
  *rows = 0;
  REQUIRE(scan != NULL, "floe_scan_count", "scan");
  return capiScanCount((uintptr_t)scan, rows);
}

floe_status floe_scan_task(floe_scan* scan, int64_t i, uint8_t** bytes, size_t* len) {
  capi_clear_error();
  REQUIRE(bytes != NULL, "floe_scan_task", "bytes");
  *bytes = NULL;
  REQUIRE(len != NULL, "floe_scan_task", "len");
  *len = 0;
  REQUIRE(scan != NULL, "floe_scan_task", "scan");
  return capiScanTask((uintptr_t)scan, i, bytes, len);
}

floe_status floe_scan_stream(floe_scan* scan, struct ArrowArrayStream* out) {
  capi_clear_error();
  REQUIRE(out != NULL, "floe_scan_stream", "out");
  memset(out, 0, sizeof *out);
  REQUIRE(scan != NULL, "floe_scan_stream", "scan");
  return capiScanStream((uintptr_t)scan, NULL, out);
}

floe_status floe_scan_stream_options(floe_scan* scan, const char* options_json, struct ArrowArrayStream* out) {
  capi_clear_error();
  REQUIRE(out != NULL, "floe_scan_stream_options", "out");
  memset(out, 0, sizeof *out);
  REQUIRE(scan != NULL, "floe_scan_stream_options", "scan");
  return capiScanStream((uintptr_t)scan, (char*)(options_json != NULL ? options_json : ""), out);
}

floe_status floe_scan_add_filter(floe_scan* scan, const char* filter) {
  capi_clear_error();
  REQUIRE(scan != NULL, "floe_scan_add_filter", "scan");
  REQUIRE(filter != NULL, "floe_scan_add_filter", "filter");
  return capiScanAddFilter((uintptr_t)scan, (char*)filter);
}

floe_status floe_scan_metrics(floe_scan* scan, char** json_out) {
  capi_clear_error();
  REQUIRE(json_out != NULL, "floe_scan_metrics", "json_out");
  *json_out = NULL;
  REQUIRE(scan != NULL, "floe_scan_metrics", "scan");
  return capiScanMetrics((uintptr_t)scan, json_out);
}

floe_status floe_runtime_stats(char** json) {
  capi_clear_error();
  REQUIRE(json != NULL, "floe_runtime_stats", "json");
  *json = NULL;
  return capiRuntimeStats(json);
}

floe_status floe_scan_cancel(floe_scan* scan) {
  capi_clear_error();
  REQUIRE(scan != NULL, "floe_scan_cancel", "scan");
  return capiScanCancel((uintptr_t)scan);
}

floe_status floe_scan_free(floe_scan* scan) {
  capi_clear_error();
  if (scan == NULL) return FLOE_OK;
  return capiScanFree((uintptr_t)scan);
}

floe_status floe_inspect(floe_table* table, const char* kind, const char* options_json,
                         struct ArrowArrayStream* out) {
  capi_clear_error();
  REQUIRE(out != NULL, "floe_inspect", "out");
  memset(out, 0, sizeof *out);
  REQUIRE(table != NULL, "floe_inspect", "table");
  REQUIRE(kind != NULL, "floe_inspect", "kind");
  return capiInspect((uintptr_t)table, (char*)kind, (char*)options_json, out);
}

floe_status floe_inspect_plan(floe_table* table, const char* kind, const char* options_json,
                              char** tasks_json) {
  capi_clear_error();
  REQUIRE(tasks_json != NULL, "floe_inspect_plan", "tasks_json");
  *tasks_json = NULL;
  REQUIRE(table != NULL, "floe_inspect_plan", "table");
  REQUIRE(kind != NULL, "floe_inspect_plan", "kind");
  return capiInspectPlan((uintptr_t)table, (char*)kind, (char*)options_json, tasks_json);
}

floe_status floe_task_stream(const uint8_t* task, size_t len, const char* options_json,
                             struct ArrowArrayStream* out) {
  capi_clear_error();
  REQUIRE(out != NULL, "floe_task_stream", "out");
  memset(out, 0, sizeof *out);
  REQUIRE(task != NULL, "floe_task_stream", "task");
  return capiTaskStream((uint8_t*)task, len, (char*)options_json, out);
}

floe_status floe_table_create(const char* location, const char* schema_json, const char* options_json,
                              floe_table** out) {
  capi_clear_error();
  REQUIRE(out != NULL, "floe_table_create", "out");
  *out = NULL;
  REQUIRE(location != NULL, "floe_table_create", "location");
  REQUIRE(schema_json != NULL, "floe_table_create", "schema_json");
  uintptr_t handle = 0;
  floe_status rc = capiTableCreate((char*)location, (char*)schema_json, (char*)options_json, &handle);
  if (rc == FLOE_OK) *out = (floe_table*)handle;
  return rc;
}

// The functions taking a stream own it from the call on: whatever Go did
// not consume (an argument was refused first) is released here, so the
// caller never has to tell the two cases apart.
static void release_stream(struct ArrowArrayStream* data) {
  if (data != NULL && data->release != NULL) data->release(data);
}

typedef int (*stream_commit_fn)(uintptr_t, struct ArrowArrayStream*, char*, int64_t*);

static floe_status commit_stream(const char* fn, stream_commit_fn commit, floe_table* table,
                                 struct ArrowArrayStream* data, const char* commit_json,
                                 int64_t* snapshot_id) {
  floe_status rc;
  char msg[128];
  if (snapshot_id != NULL) *snapshot_id = 0;
  if (snapshot_id == NULL || table == NULL || data == NULL || data->release == NULL) {
    const char* what = snapshot_id == NULL ? "snapshot_id is NULL"
                       : table == NULL     ? "table is NULL"
                       : data == NULL      ? "data is NULL"
                                           : "data is a released stream";
    snprintf(msg, sizeof msg, "%s: %s", fn, what);
    release_stream(data);
    return fail(FLOE_INVALID_ARGUMENT, msg);
  }
  rc = commit((uintptr_t)table, data, (char*)commit_json, snapshot_id);
  release_stream(data);
  return rc;
}

floe_status floe_append(floe_table* table, struct ArrowArrayStream* data, const char* commit_json,
                        int64_t* snapshot_id) {
  capi_clear_error();
  return commit_stream("floe_append", capiAppend, table, data, commit_json, snapshot_id);
}

floe_status floe_replace_partitions(floe_table* table, struct ArrowArrayStream* data,
                                    const char* commit_json, int64_t* snapshot_id) {
  capi_clear_error();
  return commit_stream("floe_replace_partitions", capiReplacePartitions, table, data, commit_json,
                       snapshot_id);
}

floe_status floe_write_files(floe_table* table, struct ArrowArrayStream* data, uint8_t** files,
                             size_t* len) {
  capi_clear_error();
  floe_status rc = FLOE_INVALID_ARGUMENT;
  const char* what = NULL;
  if (files != NULL) *files = NULL;
  if (len != NULL) *len = 0;
  if (files == NULL) what = "floe_write_files: files is NULL";
  else if (len == NULL) what = "floe_write_files: len is NULL";
  else if (table == NULL) what = "floe_write_files: table is NULL";
  else if (data == NULL) what = "floe_write_files: data is NULL";
  else if (data->release == NULL) what = "floe_write_files: data is a released stream";
  if (what != NULL) {
    release_stream(data);
    return fail(FLOE_INVALID_ARGUMENT, what);
  }
  rc = capiWriteFiles((uintptr_t)table, data, files, len);
  release_stream(data);
  return rc;
}

floe_status floe_append_files(floe_table* table, const uint8_t* files, size_t len,
                              const char* commit_json, int64_t* snapshot_id) {
  capi_clear_error();
  REQUIRE(snapshot_id != NULL, "floe_append_files", "snapshot_id");
  *snapshot_id = 0;
  REQUIRE(table != NULL, "floe_append_files", "table");
  REQUIRE(files != NULL, "floe_append_files", "files");
  return capiAppendFiles((uintptr_t)table, (uint8_t*)files, len, (char*)commit_json, snapshot_id);
}

floe_status floe_replace_partitions_files(floe_table* table, const uint8_t* files, size_t len,
                                          const char* commit_json, int64_t* snapshot_id) {
  capi_clear_error();
  REQUIRE(snapshot_id != NULL, "floe_replace_partitions_files", "snapshot_id");
  *snapshot_id = 0;
  REQUIRE(table != NULL, "floe_replace_partitions_files", "table");
  REQUIRE(files != NULL, "floe_replace_partitions_files", "files");
  return capiReplacePartitionsFiles((uintptr_t)table, (uint8_t*)files, len, (char*)commit_json, snapshot_id);
}

floe_status floe_discard_files(floe_table* table, const uint8_t* files, size_t len) {
  capi_clear_error();
  REQUIRE(table != NULL, "floe_discard_files", "table");
  REQUIRE(files != NULL, "floe_discard_files", "files");
  return capiDiscardFiles((uintptr_t)table, (uint8_t*)files, len);
}

floe_status floe_add_files(floe_table* table, const char* paths_json, const char* commit_json,
                           int64_t* snapshot_id) {
  capi_clear_error();
  REQUIRE(snapshot_id != NULL, "floe_add_files", "snapshot_id");
  *snapshot_id = 0;
  REQUIRE(table != NULL, "floe_add_files", "table");
  REQUIRE(paths_json != NULL, "floe_add_files", "paths_json");
  return capiAddFiles((uintptr_t)table, (char*)paths_json, (char*)commit_json, snapshot_id);
}

floe_status floe_commit(floe_table* table, const uint8_t* added_files, size_t len,
                        const char* removed_paths_json, const char* commit_json,
                        int64_t* snapshot_id) {
  capi_clear_error();
  REQUIRE(snapshot_id != NULL, "floe_commit", "snapshot_id");
  *snapshot_id = 0;
  REQUIRE(table != NULL, "floe_commit", "table");
  return capiCommit((uintptr_t)table, (uint8_t*)added_files, len, (char*)removed_paths_json,
                    (char*)commit_json, snapshot_id);
}

floe_status floe_expire_snapshots(floe_table* table, const char* options_json, char** result_json) {
  capi_clear_error();
  REQUIRE(result_json != NULL, "floe_expire_snapshots", "result_json");
  *result_json = NULL;
  REQUIRE(table != NULL, "floe_expire_snapshots", "table");
  return capiExpireSnapshots((uintptr_t)table, (char*)options_json, result_json);
}

floe_status floe_json_rows_stream(floe_table* table, const char* rows, size_t len,
                                  struct ArrowArrayStream* out) {
  capi_clear_error();
  REQUIRE(out != NULL, "floe_json_rows_stream", "out");
  memset(out, 0, sizeof *out);
  REQUIRE(table != NULL, "floe_json_rows_stream", "table");
  REQUIRE(rows != NULL || len == 0, "floe_json_rows_stream", "rows");
  return capiJSONRowsStream((uintptr_t)table, (char*)(rows != NULL ? rows : ""), len, out);
}

floe_status floe_array_stream(struct ArrowSchema* schema, struct ArrowArray* array,
                              struct ArrowArrayStream* out) {
  floe_status rc;
  capi_clear_error();
  if (out != NULL) memset(out, 0, sizeof *out);
  if (out == NULL || schema == NULL || array == NULL || schema->release == NULL || array->release == NULL) {
    if (schema != NULL && schema->release != NULL) schema->release(schema);
    if (array != NULL && array->release != NULL) array->release(array);
    return fail(FLOE_INVALID_ARGUMENT, "floe_array_stream: out, schema or array is NULL or released");
  }
  rc = capiArrayStream(schema, array, out);
  if (schema->release != NULL) schema->release(schema);
  if (array->release != NULL) array->release(array);
  return rc;
}

floe_status floe_delete_rows(floe_table* table, const char* filter, const char* commit_json,
                             int64_t* snapshot_id) {
  capi_clear_error();
  REQUIRE(snapshot_id != NULL, "floe_delete_rows", "snapshot_id");
  *snapshot_id = 0;
  REQUIRE(table != NULL, "floe_delete_rows", "table");
  REQUIRE(filter != NULL, "floe_delete_rows", "filter");
  return capiDeleteRows((uintptr_t)table, (char*)filter, (char*)commit_json, snapshot_id);
}

floe_status floe_overwrite(floe_table* table, const char* filter, struct ArrowArrayStream* data,
                           const char* commit_json, int64_t* snapshot_id) {
  floe_status rc;
  capi_clear_error();
  if (snapshot_id != NULL) *snapshot_id = 0;
  if (snapshot_id == NULL || table == NULL || filter == NULL || data == NULL ||
      data->release == NULL) {
    const char* what = snapshot_id == NULL ? "floe_overwrite: snapshot_id is NULL"
                       : table == NULL     ? "floe_overwrite: table is NULL"
                       : filter == NULL    ? "floe_overwrite: filter is NULL"
                       : data == NULL      ? "floe_overwrite: data is NULL"
                                           : "floe_overwrite: data is a released stream";
    release_stream(data);
    return fail(FLOE_INVALID_ARGUMENT, what);
  }
  rc = capiOverwrite((uintptr_t)table, (char*)filter, data, (char*)commit_json, snapshot_id);
  release_stream(data);
  return rc;
}

floe_status floe_upsert(floe_table* table, struct ArrowArrayStream* data, const char* options_json,
                        char** result_json) {
  floe_status rc;
  capi_clear_error();
  if (result_json != NULL) *result_json = NULL;
  if (result_json == NULL || table == NULL || data == NULL || data->release == NULL) {
    const char* what = result_json == NULL ? "floe_upsert: result_json is NULL"
                       : table == NULL     ? "floe_upsert: table is NULL"
                       : data == NULL      ? "floe_upsert: data is NULL"
                                           : "floe_upsert: data is a released stream";
    release_stream(data);
    return fail(FLOE_INVALID_ARGUMENT, what);
  }
  rc = capiUpsert((uintptr_t)table, data, (char*)options_json, result_json);
  release_stream(data);
  return rc;
}

floe_status floe_task_io_open(const uint8_t* task, size_t len, const char* options_json,
                              floe_task_io** out) {
  capi_clear_error();
  REQUIRE(out != NULL, "floe_task_io_open", "out");
  *out = NULL;
  REQUIRE(task != NULL, "floe_task_io_open", "task");
  uintptr_t handle = 0;
  floe_status rc = capiTaskIOOpen((uint8_t*)task, len, (char*)options_json, &handle);
  if (rc == FLOE_OK) *out = (floe_task_io*)handle;
  return rc;
}

floe_status floe_task_needed_ranges(floe_task_io* io, const floe_byte_range** ranges,
                                    size_t* count) {
  capi_clear_error();
  REQUIRE(ranges != NULL, "floe_task_needed_ranges", "ranges");
  REQUIRE(count != NULL, "floe_task_needed_ranges", "count");
  *ranges = NULL;
  *count = 0;
  REQUIRE(io != NULL, "floe_task_needed_ranges", "io");
  return capiTaskNeededRanges((uintptr_t)io, (floe_byte_range**)ranges, count);
}

floe_status floe_task_fill(floe_task_io* io, const char* path, int64_t offset, const uint8_t* data,
                           size_t len) {
  capi_clear_error();
  REQUIRE(io != NULL, "floe_task_fill", "io");
  REQUIRE(path != NULL, "floe_task_fill", "path");
  REQUIRE(data != NULL || len == 0, "floe_task_fill", "data");
  return capiTaskFill((uintptr_t)io, (char*)path, offset, (uint8_t*)data, len);
}

floe_status floe_task_io_stream(floe_task_io* io, struct ArrowArrayStream* out) {
  capi_clear_error();
  REQUIRE(out != NULL, "floe_task_io_stream", "out");
  memset(out, 0, sizeof *out);
  REQUIRE(io != NULL, "floe_task_io_stream", "io");
  return capiTaskIOStream((uintptr_t)io, out);
}

floe_status floe_task_io_free(floe_task_io* io) {
  capi_clear_error();
  if (io == NULL) return FLOE_OK;
  return capiTaskIOFree((uintptr_t)io);
}

floe_status floe_binary_dictionary(const int64_t* offsets, int64_t n, const uint8_t* data, int64_t data_len,
                                   int64_t max_distinct, int32_t* codes, int64_t* firsts, int64_t* distinct) {
  capi_clear_error();
  REQUIRE(distinct != NULL, "floe_binary_dictionary", "distinct");
  *distinct = -1;
  REQUIRE(offsets != NULL, "floe_binary_dictionary", "offsets");
  return capiBinaryDictionary((int64_t*)offsets, n, (uint8_t*)data, data_len, max_distinct, codes, firsts, distinct);
}
