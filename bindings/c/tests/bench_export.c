/* bench_export: what one batch costs to leave floe, seen from C.
 *
 *   floe_bench_export FIXTURES_DIR
 *
 * Reads lineitem (51793 rows, 16 columns) single-threaded at several batch
 * sizes. Rows are the same each time, so the extra time as batches get
 * smaller is the per-batch cost: get_next's export and the consumer's
 * release, plus the reader's own per-batch work. The slope of time against
 * batch count (least squares) estimates it; the release callback, the
 * consumer's whole share, is timed on its own. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "floe.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FIXTURES_DIR\n", argv[0]);
    return 2;
  }
  char location[4096], options[8192];
  snprintf(location, sizeof location, "%s/duckdb_lineitem_iceberg", argv[1]);
  snprintf(options, sizeof options, "{\"location_map\": {\"lineitem_iceberg\": \"%s/duckdb_lineitem_iceberg\"}}",
           argv[1]);
  floe_table* table = NULL;
  if (floe_table_open(location, options, &table) != FLOE_OK) {
    fprintf(stderr, "open: %s\n", floe_last_error());
    return 1;
  }
  static const int sizes[] = {65536, 16384, 4096, 1024, 256, 64};
  enum { N = sizeof sizes / sizeof sizes[0], REPEAT = 5 };
  double xs[N], ys[N];
  printf("%10s %8s %12s %14s %16s\n", "batch_size", "batches", "best_ms", "us_per_batch", "release_us_each");
  for (int i = 0; i < N; i++) {
    char scan_json[128];
    snprintf(scan_json, sizeof scan_json, "{\"batch_size\": %d, \"threads\": 1}", sizes[i]);
    floe_scan* scan = NULL;
    if (floe_scan_open(table, scan_json, &scan) != FLOE_OK) {
      fprintf(stderr, "scan: %s\n", floe_last_error());
      return 1;
    }
    double best = 1e30, best_release = 0;
    int64_t batches = 0;
    for (int r = 0; r < REPEAT; r++) {
      struct ArrowArrayStream stream;
      double t0 = now(), released = 0;
      if (floe_scan_stream(scan, &stream) != FLOE_OK) {
        fprintf(stderr, "stream: %s\n", floe_last_error());
        return 1;
      }
      batches = 0;
      for (;;) {
        struct ArrowArray batch;
        if (stream.get_next(&stream, &batch) != 0) {
          fprintf(stderr, "get_next: %s\n", stream.get_last_error(&stream));
          return 1;
        }
        if (batch.release == NULL) break;
        batches++;
        double r0 = now();
        batch.release(&batch);
        released += now() - r0;
      }
      stream.release(&stream);
      double dt = now() - t0;
      if (dt < best) best = dt, best_release = released;
    }
    floe_scan_free(scan);
    xs[i] = (double)batches;
    ys[i] = best;
    printf("%10d %8lld %12.3f %14.2f %16.2f\n", sizes[i], (long long)batches, best * 1e3, best * 1e6 / (double)batches,
           best_release * 1e6 / (double)batches);
  }
  double mx = 0, my = 0, sxy = 0, sxx = 0;
  for (int i = 0; i < N; i++) mx += xs[i] / N, my += ys[i] / N;
  for (int i = 0; i < N; i++) sxy += (xs[i] - mx) * (ys[i] - my), sxx += (xs[i] - mx) * (xs[i] - mx);
  printf("per-batch cost (slope): %.2f us; fixed part at zero batches: %.2f ms\n", sxy / sxx * 1e6,
         (my - sxy / sxx * mx) * 1e3);
  floe_table_free(table);
  return 0;
}
