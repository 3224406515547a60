// floe_catalog_commit_transaction, checked here as floe.c checks every
// entry point (the thread's error cleared, pointers checked) and run in
// Go (catalog_transaction.go).
#include <string.h>

#include "_cgo_export.h"
#include "capi.h"

static floe_status catalog_tx_fail(const char* msg) {
  capi_set_error(msg, strlen(msg));
  return FLOE_INVALID_ARGUMENT;
}

floe_status floe_catalog_commit_transaction(floe_catalog* catalog, floe_table* const* tables, size_t n_tables,
                                            const char* transactions_json, const char* options_json,
                                            char** result_json) {
  capi_clear_error();
  if (result_json == NULL) return catalog_tx_fail("floe_catalog_commit_transaction: result_json is NULL");
  *result_json = NULL;
  if (catalog == NULL) return catalog_tx_fail("floe_catalog_commit_transaction: catalog is NULL");
  if (tables == NULL) return catalog_tx_fail("floe_catalog_commit_transaction: tables is NULL");
  if (transactions_json == NULL) return catalog_tx_fail("floe_catalog_commit_transaction: transactions_json is NULL");
  for (size_t i = 0; i < n_tables; i++) {
    if (tables[i] == NULL) return catalog_tx_fail("floe_catalog_commit_transaction: a table is NULL");
  }
  // A handle is its pointer's value (floe.c's casts): the array is one of
  // uintptr_t.
  return capiCatalogCommitTransaction((uintptr_t)catalog, (uintptr_t*)tables, n_tables, (char*)transactions_json,
                                      (char*)options_json, result_json);
}
