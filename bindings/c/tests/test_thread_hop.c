/* Streams read a call at a time from threads other than the one that
 * opened them, as hosts do (Python's to_pandas reads on a thread of its
 * own; an engine's workers take turns): every call from C runs on a Go
 * goroutine locked to its thread, and a reader that moved a coroutine
 * between them would abort the process. */
#include <pthread.h>
#include <string.h>

#include "arrow_read.h"
#include "harness.h"
#include "test_thread_hop.h"

#define SIX_SNAPSHOTS "impala_iceberg_v2_positional_not_all_data_files_have_delete_files"

struct hop {
  struct ArrowArrayStream* stream;
  struct ArrowArray batch;
  struct ArrowSchema schema;
  int rc;
  int release; /* release the stream instead of reading it */
};

static void* hop_call(void* arg) {
  struct hop* h = arg;
  if (h->release) {
    h->stream->release(h->stream);
  } else if (h->schema.release == NULL && h->rc == -1) {
    h->rc = h->stream->get_schema(h->stream, &h->schema);
  } else {
    h->rc = h->stream->get_next(h->stream, &h->batch);
  }
  return NULL;
}

/* Runs one stream call on a new thread and waits for it. */
static void hop_run(struct hop* h) {
  pthread_t th;
  CHECK(pthread_create(&th, NULL, hop_call, h) == 0);
  pthread_join(th, NULL);
}

/* Reads the stream to its end, each call on a thread of its own, and
 * releases it on yet another; the rows read, or -1 on a stream error. */
static int64_t rows_across_threads(struct ArrowArrayStream* stream, const char* what) {
  struct hop h = {.stream = stream, .rc = -1};
  hop_run(&h); /* get_schema */
  CHECK(h.rc == 0);
  if (h.schema.release != NULL) h.schema.release(&h.schema);
  int64_t rows = 0;
  for (;;) {
    memset(&h.batch, 0, sizeof h.batch);
    hop_run(&h);
    if (h.rc != 0) {
      fprintf(stderr, "%s: get_next: %d: %s\n", what, h.rc, stream->get_last_error(stream));
      rows = -1;
      break;
    }
    if (h.batch.release == NULL) break;
    rows += h.batch.length;
    h.batch.release(&h.batch);
  }
  h.release = 1;
  hop_run(&h);
  return rows;
}

/* The same stream read on this thread, for the row count to compare. */
static int64_t rows_here(struct ArrowArrayStream* stream) { return stream_count_rows(stream, NULL); }

static void check_inspect(floe_table* t, const char* kind, const char* options) {
  struct ArrowArrayStream a, b;
  CHECK_OK(floe_inspect(t, kind, options, &a));
  CHECK_OK(floe_inspect(t, kind, options, &b));
  int64_t want = rows_here(&a);
  int64_t got = rows_across_threads(&b, kind);
  CHECK(want > 0);
  CHECK_EQ_I64(got, want);
}

static void check_scan(floe_table* t, const char* options, int64_t at_least) {
  struct ArrowArrayStream a, b;
  floe_scan* s = NULL;
  CHECK_OK(floe_scan_open(t, options, &s));
  if (s == NULL) return;
  CHECK_OK(floe_scan_stream(s, &a));
  CHECK_OK(floe_scan_stream(s, &b));
  floe_scan_free(s);
  int64_t want = rows_here(&a);
  int64_t got = rows_across_threads(&b, options);
  CHECK(want >= at_least);
  CHECK_EQ_I64(got, want);
}

void test_streams_across_threads(void) {
  floe_table* t = open_fixture(SIX_SNAPSHOTS);
  if (t == NULL) return;
  /* Row-built and columnar metadata tables, a batch of one row at a time. */
  check_inspect(t, "snapshots", "{\"batch_size\": 1}");
  check_inspect(t, "entries", "{\"batch_size\": 1}");
  check_inspect(t, "files", "{\"batch_size\": 1}");
  check_inspect(t, "history", NULL);

  /* The changelog of the whole history, its incremental scan, and the
   * table's rows on one and two threads. */
  check_scan(t,
             "{\"changelog\": true, \"from_snapshot_id\": 4363979609026842966, "
             "\"to_snapshot_id\": 1497619269847778439, \"batch_size\": 1}",
             1);
  check_scan(t, "{\"from_snapshot_id\": 4363979609026842966, \"to_snapshot_id\": 1497619269847778439}", 1);
  check_scan(t, "{\"batch_size\": 2}", 1);
  check_scan(t, "{\"batch_size\": 2, \"threads\": 2}", 1);
  floe_table_free(t);
}
