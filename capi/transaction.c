// floe_table_transaction, checked here as floe.c checks every entry point
// (the thread's error cleared, pointers checked) and run in Go
// (transaction.go). A file of its own so transactions add no line to
// floe.c.
#include <string.h>

#include "_cgo_export.h"
#include "capi.h"

floe_status floe_table_transaction(floe_table* table, const char* actions_json, const char* options_json,
                                   char** result_json) {
  capi_clear_error();
  if (result_json == NULL) {
    static const char msg[] = "floe_table_transaction: result_json is NULL";
    capi_set_error(msg, strlen(msg));
    return FLOE_INVALID_ARGUMENT;
  }
  *result_json = NULL;
  if (table == NULL || actions_json == NULL) {
    const char* msg = table == NULL ? "floe_table_transaction: table is NULL"
                                    : "floe_table_transaction: actions_json is NULL";
    capi_set_error(msg, strlen(msg));
    return FLOE_INVALID_ARGUMENT;
  }
  return capiTableTransaction((uintptr_t)table, (char*)actions_json, (char*)options_json, result_json);
}

floe_status floe_table_transaction_preview(floe_table* table, const char* actions_json, floe_table** out) {
  capi_clear_error();
  if (out == NULL || table == NULL) {
    const char* msg = out == NULL ? "floe_table_transaction_preview: out is NULL"
                                  : "floe_table_transaction_preview: table is NULL";
    if (out != NULL) *out = NULL;
    capi_set_error(msg, strlen(msg));
    return FLOE_INVALID_ARGUMENT;
  }
  *out = NULL;
  uintptr_t handle = 0;
  floe_status rc = capiTableTransactionPreview((uintptr_t)table, (char*)actions_json, &handle);
  if (rc == FLOE_OK) *out = (floe_table*)handle;
  return rc;
}

floe_status floe_schema_from_arrow(struct ArrowSchema* schema, char** schema_json) {
  capi_clear_error();
  const char* msg = schema_json == NULL    ? "floe_schema_from_arrow: schema_json is NULL"
                    : schema == NULL         ? "floe_schema_from_arrow: schema is NULL"
                    : schema->release == NULL ? "floe_schema_from_arrow: schema is released"
                                              : NULL;
  if (schema_json != NULL) *schema_json = NULL;
  if (msg != NULL) {
    if (schema != NULL && schema->release != NULL) schema->release(schema);
    capi_set_error(msg, strlen(msg));
    return FLOE_INVALID_ARGUMENT;
  }
  return capiSchemaFromArrow(schema, schema_json);
}
