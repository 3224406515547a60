/* scan: print how many rows of a table match a filter (all rows without
 * one), reading every batch through the Arrow C stream interface, then what
 * the scan pruned and read.
 *
 *   scan TABLE [PREFIX=TARGET ...] [--filter=EXPR]
 *
 * TABLE is a table directory, a metadata file or "ns.table" (with
 * FLOE_WAREHOUSE set); each PREFIX=TARGET maps a location written in the
 * table's metadata to where the files are now. EXPR is a row filter, as
 * text ("id > 10 and action <> 'click'") or a REST JSON expression. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe.h"

static int die(const char* what, floe_status rc) {
  fprintf(stderr, "%s: %s: %s\n", what, floe_status_name(rc), floe_last_error());
  return 1;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s TABLE [PREFIX=TARGET ...] [--filter=EXPR]\n", argv[0]);
    return 2;
  }
  /* Build {"location_map": {"PREFIX": "TARGET", ...}}. Paths with quotes
   * or backslashes would need JSON escaping; this example does not. */
  const char* filter = NULL;
  size_t cap = 64;
  for (int i = 2; i < argc; i++) cap += strlen(argv[i]) + 8;
  char* options = malloc(cap);
  if (options == NULL) return 1;
  size_t used = (size_t)snprintf(options, cap, "{\"location_map\": {");
  int pairs = 0;
  for (int i = 2; i < argc; i++) {
    if (strncmp(argv[i], "--filter=", 9) == 0) {
      filter = argv[i] + 9;
      continue;
    }
    char* eq = strchr(argv[i], '=');
    if (eq == NULL) {
      fprintf(stderr, "%s: expected PREFIX=TARGET\n", argv[i]);
      free(options);
      return 2;
    }
    used += (size_t)snprintf(options + used, cap - used, "%s\"%.*s\": \"%s\"", pairs++ ? ", " : "",
                             (int)(eq - argv[i]), argv[i], eq + 1);
  }
  snprintf(options + used, cap - used, "}}");

  floe_table* table = NULL;
  floe_status rc = floe_table_open(argv[1], options, &table);
  free(options);
  if (rc != FLOE_OK) return die("open", rc);

  floe_scan* scan = NULL;
  rc = floe_scan_open(table, "{\"columns\": []}", &scan); /* no columns: just count */
  floe_table_free(table);
  if (rc != FLOE_OK) return die("scan", rc);
  /* The filter could go in the scan options too ("filter": ...); added to
   * the scan, it may also come later, while streams are being read. */
  if (filter != NULL && (rc = floe_scan_add_filter(scan, filter)) != FLOE_OK) {
    die("filter", rc);
    floe_scan_free(scan);
    return 2;
  }

  struct ArrowArrayStream stream;
  rc = floe_scan_stream(scan, &stream);
  if (rc != FLOE_OK) {
    die("stream", rc);
    floe_scan_free(scan);
    return 1;
  }

  long long rows = 0;
  int status = 0;
  for (;;) {
    struct ArrowArray batch;
    int err = stream.get_next(&stream, &batch);
    if (err != 0) {
      fprintf(stderr, "read: %s\n", stream.get_last_error(&stream));
      status = 1;
      break;
    }
    if (batch.release == NULL) break; /* end of stream */
    rows += batch.length;
    batch.release(&batch);
  }
  stream.release(&stream);
  if (status == 0) printf("%lld rows\n", rows);

  char* metrics = NULL;
  if (status == 0 && (rc = floe_scan_metrics(scan, &metrics)) == FLOE_OK) printf("metrics: %s\n", metrics);
  floe_string_free(metrics);
  floe_scan_free(scan);
  return status;
}
