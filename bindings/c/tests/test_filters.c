/* Runtime filters (floe_scan_add_filter) and scan metrics
 * (floe_scan_metrics). Expected answers for impala_iceberg_partitioned come
 * from Impala's iceberg-query.test (INDEX.md): 20 rows, `id > 10` → 10,
 * `action <> 'click'` → 14. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arrow_read.h"
#include "floe.h"
#include "harness.h"
#include "test_filters.h"

#define NOT_CLICK_JSON "{\"type\": \"not-eq\", \"term\": \"action\", \"value\": \"click\"}"

/* ---- helpers ---------------------------------------------------------- */

static floe_scan* open_scan(floe_table* t, const char* scan_json) {
  floe_scan* s = NULL;
  floe_status rc = floe_scan_open(t, scan_json, &s);
  if (rc != FLOE_OK) {
    atomic_fetch_add(&test_failures, 1);
    fprintf(stderr, "scan %s: %s: %s\n", scan_json ? scan_json : "NULL", floe_status_name(rc), floe_last_error());
  }
  return s;
}

/* Rows of a new stream of s, or -1 (a failed check) when it fails. */
static int64_t stream_rows(floe_scan* s) {
  struct ArrowArrayStream stream;
  floe_status rc = floe_scan_stream(s, &stream);
  if (rc != FLOE_OK) {
    atomic_fetch_add(&test_failures, 1);
    fprintf(stderr, "floe_scan_stream: %s: %s\n", floe_status_name(rc), floe_last_error());
    return -1;
  }
  int64_t rows = stream_count_rows(&stream, NULL);
  CHECK(rows >= 0);
  return rows;
}

/* Rows of a new scan of t with scan_json. */
static int64_t scan_rows(floe_table* t, const char* scan_json) {
  floe_scan* s = open_scan(t, scan_json);
  if (s == NULL) return -1;
  int64_t rows = stream_rows(s);
  floe_scan_free(s);
  return rows;
}

/* Reads a stream of s over impala_iceberg_partitioned and checks that every
 * row has id > min_id and, if no_click, an action other than "click".
 * Returns the row count. */
static int64_t stream_rows_checking(floe_scan* s, int32_t min_id, int no_click) {
  struct ArrowSchema schema;
  CHECK_OK(floe_scan_schema(s, &schema));
  int id = schema_field(&schema, "id"), action = schema_field(&schema, "action");
  schema.release(&schema);
  CHECK(id >= 0 && action >= 0);
  struct ArrowArrayStream stream;
  CHECK_OK(floe_scan_stream(s, &stream));
  if (id < 0 || action < 0 || stream.release == NULL) return -1;
  int64_t rows = 0;
  for (;;) {
    struct ArrowArray batch;
    int e = stream.get_next(&stream, &batch);
    if (e != 0) {
      atomic_fetch_add(&test_failures, 1);
      fprintf(stderr, "get_next: %d: %s\n", e, stream.get_last_error(&stream));
      rows = -1;
      break;
    }
    if (batch.release == NULL) break;
    for (int64_t r = 0; r < batch.length; r++) {
      int32_t v = arrow_i32(batch.children[id], r);
      int32_t len = 0;
      const uint8_t* a = arrow_bytes(batch.children[action], r, &len);
      if (v <= min_id || (no_click && len == 5 && memcmp(a, "click", 5) == 0)) {
        atomic_fetch_add(&test_failures, 1);
        fprintf(stderr, "row id=%d action=%.*s passed a filter it fails\n", v, (int)len, (const char*)a);
      }
    }
    rows += batch.length;
    batch.release(&batch);
  }
  stream.release(&stream);
  return rows;
}

/* floe_scan_metrics' counters (include/floe.h), parsed from its JSON. */
enum {
  M_MANIFESTS_SKIPPED,
  M_FILES_SKIPPED,
  M_FILES_PLANNED,
  M_ROW_GROUPS_READ,
  M_ROW_GROUPS_SKIPPED,
  M_PAGES_SKIPPED,
  M_BYTES_READ,
  M_BYTES_SKIPPED,
  M_ROWS_FILTERED,
  M_ROWS_DELETED,
  M_ROWS_RETURNED,
  METRIC_COUNT
};
static const char* const metric_keys[METRIC_COUNT] = {
    "manifests_skipped", "files_skipped", "files_planned", "row_groups_read", "row_groups_skipped", "pages_skipped",
    "bytes_read",        "bytes_skipped", "rows_filtered", "rows_deleted",    "rows_returned",
};

struct metrics {
  long long v[METRIC_COUNT];
};

static const char* skip_space(const char* p) {
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
  return p;
}

/* Parses a flat JSON object of integers into m. Every documented key must
 * be there once, with a value >= 0; unknown keys are allowed (the header
 * says counters may be added). Returns 0 and prints why when it fails. */
static int parse_metrics(const char* json, struct metrics* m) {
  int seen[METRIC_COUNT] = {0};
  const char* p = skip_space(json);
  if (*p++ != '{') goto bad;
  p = skip_space(p);
  if (*p == '}') {
    p++;
  } else {
    for (;;) {
      if (*p++ != '"') goto bad;
      const char* key = p;
      while (*p != '"' && *p != '\\' && *p != '\0') p++;
      if (*p != '"') goto bad;
      size_t key_len = (size_t)(p - key);
      p = skip_space(p + 1);
      if (*p++ != ':') goto bad;
      p = skip_space(p);
      char* end = NULL;
      long long value = strtoll(p, &end, 10);
      if (end == p || value < 0) goto bad;
      p = skip_space(end);
      for (int i = 0; i < METRIC_COUNT; i++)
        if (strlen(metric_keys[i]) == key_len && memcmp(metric_keys[i], key, key_len) == 0) {
          seen[i]++;
          m->v[i] = value;
        }
      if (*p == ',') {
        p = skip_space(p + 1);
        continue;
      }
      if (*p++ != '}') goto bad;
      break;
    }
  }
  if (*skip_space(p) != '\0') goto bad;
  for (int i = 0; i < METRIC_COUNT; i++)
    if (seen[i] != 1) {
      fprintf(stderr, "metrics JSON has \"%s\" %d times: %s\n", metric_keys[i], seen[i], json);
      return 0;
    }
  return 1;
bad:
  fprintf(stderr, "metrics JSON does not parse near byte %d: %s\n", (int)(p - json), json);
  return 0;
}

/* The scan's metrics; a failed call or unparsable JSON fails the test. */
static struct metrics metrics_of(floe_scan* s) {
  struct metrics m;
  memset(&m, 0, sizeof m);
  char* json = NULL;
  floe_status rc = floe_scan_metrics(s, &json);
  if (rc != FLOE_OK || json == NULL) {
    atomic_fetch_add(&test_failures, 1);
    fprintf(stderr, "floe_scan_metrics: %s: %s\n", floe_status_name(rc), floe_last_error());
    return m;
  }
  if (!parse_metrics(json, &m)) atomic_fetch_add(&test_failures, 1);
  floe_string_free(json);
  return m;
}

static void check_error_starts(const char* prefix, const char* mention) {
  const char* msg = floe_last_error();
  if (strncmp(msg, prefix, strlen(prefix)) != 0 || strstr(msg, mention) == NULL) {
    atomic_fetch_add(&test_failures, 1);
    fprintf(stderr, "last error \"%s\" does not start with \"%s\" and mention \"%s\"\n", msg, prefix, mention);
  }
}

/* ---- single-threaded -------------------------------------------------- */

void test_add_filter_narrows(void) {
  floe_table* t = open_fixture("impala_iceberg_partitioned");
  if (t == NULL) return;

  /* The same filters given as scan options, for comparison. */
  int64_t by_option_id = scan_rows(t, "{\"filter\": \"id > 10\"}");
  int64_t by_option_json = scan_rows(t, "{\"filter\": " NOT_CLICK_JSON "}");
  int64_t by_option_both = scan_rows(t, "{\"filter\": \"id > 10 and action <> 'click'\"}");
  CHECK_EQ_I64(by_option_id, 10);
  CHECK_EQ_I64(by_option_json, 14);
  /* 10 rows have id > 10 and 14 are not clicks, of 20: 4 to 10 are both. */
  CHECK(by_option_both >= 4 && by_option_both <= 10);

  /* Text, before the first stream. */
  floe_scan* s = open_scan(t, NULL);
  if (s != NULL) {
    CHECK_EQ_I64(stream_rows(s), 20);
    CHECK_OK(floe_scan_add_filter(s, "id > 10"));
    CHECK_EQ_I64(stream_rows_checking(s, 10, 0), by_option_id);
    /* Every later stream of the scan keeps it. */
    CHECK_EQ_I64(stream_rows(s), by_option_id);
    /* A second filter tightens further; the JSON form after spaces. */
    CHECK_OK(floe_scan_add_filter(s, " \n " NOT_CLICK_JSON));
    CHECK_EQ_I64(stream_rows_checking(s, 10, 1), by_option_both);
    floe_scan_free(s);
  }

  /* The JSON form alone. */
  s = open_scan(t, "{}");
  if (s != NULL) {
    CHECK_OK(floe_scan_add_filter(s, NOT_CLICK_JSON));
    CHECK_EQ_I64(stream_rows_checking(s, INT32_MIN, 1), by_option_json);
    floe_scan_free(s);
  }

  /* Added to the scan's own filter: the AND of both. */
  s = open_scan(t, "{\"filter\": \"id > 10\"}");
  if (s != NULL) {
    CHECK_OK(floe_scan_add_filter(s, "action <> 'click'"));
    CHECK_EQ_I64(stream_rows_checking(s, 10, 1), by_option_both);
    floe_scan_free(s);
  }
  floe_table_free(t);
}

void test_add_filter_errors(void) {
  CHECK_STATUS(floe_scan_add_filter(NULL, "id > 1"), FLOE_INVALID_ARGUMENT);
  check_error_starts("floe_scan_add_filter", "scan is NULL");
  char* json = (char*)1;
  CHECK_STATUS(floe_scan_metrics(NULL, &json), FLOE_INVALID_ARGUMENT);
  CHECK(json == NULL);
  CHECK_STATUS(floe_scan_metrics((floe_scan*)1, NULL), FLOE_INVALID_ARGUMENT);

  floe_table* t = open_fixture("impala_iceberg_partitioned");
  if (t == NULL) return;
  floe_scan* s = open_scan(t, NULL);
  if (s == NULL) {
    floe_table_free(t);
    return;
  }
  CHECK_STATUS(floe_scan_add_filter(s, NULL), FLOE_INVALID_ARGUMENT);
  check_error_starts("floe_scan_add_filter", "filter is NULL");
  static const struct {
    const char* filter;
    const char* mention;
  } bad[] = {
      {"nope > 1", "nope"},                                         /* no such column */
      {"id >", "invalid filter"},                                   /* text that does not parse */
      {"", "empty"},                                                /* nothing */
      {"   ", "empty"},
      {"{\"type\": \"lt\", \"term\": \"id\"", "JSON"},              /* JSON cut short */
      {"{\"type\": \"gt\", \"term\": \"nope\", \"value\": 1}", "nope"}, /* JSON, no such column */
      {"{\"type\": \"bogus\", \"term\": \"id\", \"value\": 1}", "bogus"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    floe_status rc = floe_scan_add_filter(s, bad[i].filter);
    if (rc != FLOE_INVALID_ARGUMENT) {
      atomic_fetch_add(&test_failures, 1);
      fprintf(stderr, "add_filter(%s) returned %s, want FLOE_INVALID_ARGUMENT\n", bad[i].filter, floe_status_name(rc));
    }
    check_error_starts("floe_scan_add_filter: ", bad[i].mention);
  }
  /* The refused filters left the scan as it was. */
  CHECK_EQ_I64(stream_rows(s), 20);
  CHECK_STR(floe_last_error(), "");

  /* A freed scan is an invalid argument, not a crash. */
  floe_scan_free(s);
  CHECK_STATUS(floe_scan_add_filter(s, "id > 1"), FLOE_INVALID_ARGUMENT);
  check_error_starts("floe_scan_add_filter", "not valid");
  CHECK_STATUS(floe_scan_metrics(s, &json), FLOE_INVALID_ARGUMENT);
  CHECK(json == NULL);
  /* A table handle is not a scan. */
  CHECK_STATUS(floe_scan_add_filter((floe_scan*)t, "id > 1"), FLOE_INVALID_ARGUMENT);
  floe_table_free(t);
}

/* The table is 20 one-row files (INDEX.md), 10 of them with id > 10. */
void test_metrics(void) {
  floe_table* t = open_fixture("impala_iceberg_partitioned");
  if (t == NULL) return;
  floe_scan* s = open_scan(t, NULL);
  if (s == NULL) {
    floe_table_free(t);
    return;
  }
  struct metrics before = metrics_of(s);
  CHECK_EQ_I64(before.v[M_ROWS_RETURNED], 0); /* nothing streamed yet */
  CHECK_EQ_I64(stream_rows(s), 20);
  struct metrics after = metrics_of(s);
  for (int i = 0; i < METRIC_COUNT; i++)
    if (after.v[i] < before.v[i]) {
      atomic_fetch_add(&test_failures, 1);
      fprintf(stderr, "metric %s went down: %lld then %lld\n", metric_keys[i], before.v[i], after.v[i]);
    }
  CHECK_EQ_I64(after.v[M_ROWS_RETURNED], 20);
  CHECK_EQ_I64(after.v[M_FILES_PLANNED], 20);
  CHECK_EQ_I64(after.v[M_ROWS_DELETED], 0); /* the table has no deletes */
  /* A second stream adds to the same counters. */
  CHECK_EQ_I64(stream_rows(s), 20);
  CHECK_EQ_I64(metrics_of(s).v[M_ROWS_RETURNED], 40);
  floe_scan_free(s);

  s = open_scan(t, "{\"filter\": \"id > 10\"}");
  if (s != NULL) {
    CHECK_EQ_I64(stream_rows(s), 10);
    struct metrics m = metrics_of(s);
    CHECK_EQ_I64(m.v[M_ROWS_RETURNED], 10);
    /* Every file is planned or skipped, and the 10 that hold a match are
     * planned. */
    CHECK_EQ_I64(m.v[M_FILES_SKIPPED] + m.v[M_FILES_PLANNED], 20);
    CHECK(m.v[M_FILES_PLANNED] >= 10);
    CHECK_EQ_I64(m.v[M_ROWS_DELETED], 0);
    floe_scan_free(s);
  }
  floe_table_free(t);
}

/* ---- threads: filters added while streams are read -------------------- */

enum { READERS = 2, ADDERS = 2 };

struct race {
  floe_scan* scan;
  atomic_int first_batch;  /* reader 0 has its first batch (or gave up) */
  atomic_int filter_added; /* an adder's filter is in (or it gave up) */
  atomic_int readers_left;
  int64_t rows[READERS];
  int64_t rows_before_filter; /* reader 0's, when it paused */
};

struct race_reader {
  struct race* race;
  int index;
};

static const struct timespec race_pause = {0, 100000};

/* Reader 0 pauses after its first batch until the filter is in, so every
 * task after that one must apply it; reader 1 runs freely. */
static void* race_read(void* arg) {
  struct race_reader* r = arg;
  struct race* race = r->race;
  struct ArrowArrayStream stream;
  int64_t rows = -1;
  floe_status rc = floe_scan_stream(race->scan, &stream);
  if (rc != FLOE_OK) {
    atomic_fetch_add(&test_failures, 1);
    fprintf(stderr, "reader %d: floe_scan_stream: %s: %s\n", r->index, floe_status_name(rc), floe_last_error());
  } else {
    rows = 0;
    for (;;) {
      struct ArrowArray batch;
      int e = stream.get_next(&stream, &batch);
      if (e != 0) {
        atomic_fetch_add(&test_failures, 1);
        fprintf(stderr, "reader %d: get_next: %d: %s\n", r->index, e, stream.get_last_error(&stream));
        rows = -1;
        break;
      }
      if (batch.release == NULL) break;
      rows += batch.length;
      batch.release(&batch);
      if (r->index == 0 && !atomic_load(&race->first_batch)) {
        race->rows_before_filter = rows;
        atomic_store(&race->first_batch, 1);
        while (!atomic_load(&race->filter_added)) nanosleep(&race_pause, NULL);
      }
    }
    stream.release(&stream);
  }
  race->rows[r->index] = rows;
  atomic_store(&race->first_batch, 1);
  atomic_fetch_sub(&race->readers_left, 1);
  return NULL;
}

static void* race_add(void* arg) {
  struct race* race = arg;
  while (!atomic_load(&race->first_batch)) nanosleep(&race_pause, NULL);
  CHECK_OK(floe_scan_add_filter(race->scan, "id > 10"));
  atomic_store(&race->filter_added, 1);
  /* Until the readers finish: metrics, refused filters, and (a few times:
   * each accepted filter is kept) the same filter again in JSON form. */
  for (int round = 0; atomic_load(&race->readers_left) > 0 && round < 100000; round++) {
    metrics_of(race->scan);
    CHECK_STATUS(floe_scan_add_filter(race->scan, "id >"), FLOE_INVALID_ARGUMENT);
    if (round < 8) CHECK_OK(floe_scan_add_filter(race->scan, "{\"type\": \"gt\", \"term\": \"id\", \"value\": 10}"));
    nanosleep(&race_pause, NULL);
  }
  return NULL;
}

/* Two threads read streams of one scan (20 one-row files, one task at a
 * time) while two others tighten it with `id > 10` and read its metrics.
 * Each stream returns at least the 10 matching rows (the filter never drops
 * one) and at most all 20; the stream that paused for the filter returns
 * no more than the rows it had plus the matching ones; a stream opened
 * afterwards returns exactly the matching rows. */
void test_add_filter_while_streaming(void) {
  floe_table* t = open_fixture("impala_iceberg_partitioned");
  if (t == NULL) return;
  int64_t matching = scan_rows(t, "{\"filter\": \"id > 10\"}");
  CHECK_EQ_I64(matching, 10);
  struct race race = {.scan = open_scan(t, "{\"batch_size\": 1, \"threads\": 1}")};
  floe_table_free(t);
  if (race.scan == NULL) return;
  atomic_init(&race.first_batch, 0);
  atomic_init(&race.filter_added, 0);
  atomic_init(&race.readers_left, READERS);

  pthread_t readers[READERS], adders[ADDERS];
  struct race_reader args[READERS];
  for (int i = 0; i < READERS; i++) {
    args[i] = (struct race_reader){.race = &race, .index = i};
    CHECK(pthread_create(&readers[i], NULL, race_read, &args[i]) == 0);
  }
  for (int i = 0; i < ADDERS; i++) CHECK(pthread_create(&adders[i], NULL, race_add, &race) == 0);
  for (int i = 0; i < READERS; i++) pthread_join(readers[i], NULL);
  for (int i = 0; i < ADDERS; i++) pthread_join(adders[i], NULL);

  for (int i = 0; i < READERS; i++) {
    if (race.rows[i] < matching || race.rows[i] > 20) {
      atomic_fetch_add(&test_failures, 1);
      fprintf(stderr, "reader %d: %lld rows while the filter was added, want %lld to 20\n", i,
              (long long)race.rows[i], (long long)matching);
    }
  }
  CHECK(race.rows[0] <= race.rows_before_filter + matching);
  CHECK_EQ_I64(stream_rows(race.scan), matching);
  struct metrics m = metrics_of(race.scan);
  CHECK_EQ_I64(m.v[M_ROWS_RETURNED], race.rows[0] + race.rows[1] + matching);
  floe_scan_free(race.scan);
}
