// floe_rewrite_plan, floe_rewrite_group, floe_rewrite_commit and
// floe_rewrite_discard: a compaction run by a distributed engine. The
// pointers are checked here as floe.c checks every entry point; the work
// is in Go (rewrite_distributed.go). A file of its own so the distributed
// path adds no line to floe.c.
#include <string.h>

#include "_cgo_export.h"
#include "capi.h"

static floe_status rewrite_refuse(const char* msg) {
  capi_set_error(msg, strlen(msg));
  return FLOE_INVALID_ARGUMENT;
}

floe_status floe_rewrite_plan(floe_table* table, const char* options_json, char** plan_json) {
  capi_clear_error();
  if (plan_json == NULL) return rewrite_refuse("floe_rewrite_plan: plan_json is NULL");
  *plan_json = NULL;
  if (table == NULL) return rewrite_refuse("floe_rewrite_plan: table is NULL");
  return capiRewritePlan((uintptr_t)table, (char*)options_json, plan_json);
}

floe_status floe_rewrite_group(floe_table* table, const uint8_t* group, size_t len, const char* options_json,
                               uint8_t** result, size_t* result_len) {
  capi_clear_error();
  if (result != NULL) *result = NULL;
  if (result_len != NULL) *result_len = 0;
  if (result == NULL) return rewrite_refuse("floe_rewrite_group: result is NULL");
  if (result_len == NULL) return rewrite_refuse("floe_rewrite_group: result_len is NULL");
  if (table == NULL) return rewrite_refuse("floe_rewrite_group: table is NULL");
  if (group == NULL) return rewrite_refuse("floe_rewrite_group: group is NULL");
  return capiRewriteGroup((uintptr_t)table, (uint8_t*)group, len, (char*)options_json, result, result_len);
}

floe_status floe_rewrite_commit(floe_table* table, const uint8_t* results, size_t len, const char* options_json,
                                char** result_json) {
  capi_clear_error();
  if (result_json == NULL) return rewrite_refuse("floe_rewrite_commit: result_json is NULL");
  *result_json = NULL;
  if (table == NULL) return rewrite_refuse("floe_rewrite_commit: table is NULL");
  if (results == NULL) return rewrite_refuse("floe_rewrite_commit: results is NULL");
  return capiRewriteCommit((uintptr_t)table, (uint8_t*)results, len, (char*)options_json, result_json);
}

floe_status floe_rewrite_discard(floe_table* table, const uint8_t* results, size_t len) {
  capi_clear_error();
  if (table == NULL) return rewrite_refuse("floe_rewrite_discard: table is NULL");
  if (results == NULL) return rewrite_refuse("floe_rewrite_discard: results is NULL");
  return capiRewriteDiscard((uintptr_t)table, (uint8_t*)results, len);
}
