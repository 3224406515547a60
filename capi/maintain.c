// floe_table_maintain, checked here as floe.c checks every entry point
// (the thread's error cleared, pointers checked) and run in Go
// (maintain.go). A file of its own so maintenance adds no line to floe.c.
#include <string.h>

#include "_cgo_export.h"
#include "capi.h"

// Go cannot call a C function pointer; maintain.go calls the caller's
// progress callback through this.
void capi_call_progress(floe_progress_fn fn, const char* progress_json, void* user_data) {
  fn(progress_json, user_data);
}

floe_status floe_table_maintain(floe_table* table, const char* action, const char* options_json,
                                floe_progress_fn progress, void* user_data, char** result_json) {
  capi_clear_error();
  if (result_json == NULL) {
    static const char msg[] = "floe_table_maintain: result_json is NULL";
    capi_set_error(msg, strlen(msg));
    return FLOE_INVALID_ARGUMENT;
  }
  *result_json = NULL;
  if (table == NULL || action == NULL) {
    const char* msg = table == NULL ? "floe_table_maintain: table is NULL" : "floe_table_maintain: action is NULL";
    capi_set_error(msg, strlen(msg));
    return FLOE_INVALID_ARGUMENT;
  }
  return capiTableMaintain((uintptr_t)table, (char*)action, (char*)options_json, progress, user_data, result_json);
}
