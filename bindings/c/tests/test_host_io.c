/* Host-driven I/O: the test plays an engine with its own I/O layer, which
 * reads the byte ranges floe asks for with stdio and hands them in; every
 * task must then return exactly the rows a plain scan returns (INDEX.md's
 * counts), deletes and deletion vectors applied. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow_read.h"
#include "harness.h"
#include "test_host_io.h"

/* Reads [offset, offset+length) of path into a new buffer, or NULL. */
static uint8_t* read_range(const char* path, int64_t offset, int64_t length) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return NULL;
  uint8_t* buf = malloc(length > 0 ? (size_t)length : 1);
  if (buf != NULL && (fseek(f, (long)offset, SEEK_SET) != 0 || fread(buf, 1, (size_t)length, f) != (size_t)length)) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  return buf;
}

/* Rows of one serialised task read through host-driven I/O with the read
 * settings options (NULL: none); -1 on error. */
static int64_t host_read(const uint8_t* task, size_t len, const char* options) {
  floe_task_io* io = NULL;
  CHECK_OK(floe_task_io_open(task, len, options, &io));
  if (io == NULL) return -1;
  int64_t rows = -1;
  for (int round = 0; round < 8; round++) {
    const floe_byte_range* ranges = NULL;
    size_t count = 0;
    CHECK_OK(floe_task_needed_ranges(io, &ranges, &count));
    if (count == 0) {
      struct ArrowArrayStream stream;
      CHECK_OK(floe_task_io_stream(io, &stream));
      if (stream.release != NULL) rows = stream_count_rows(&stream, NULL);
      break;
    }
    for (size_t i = 0; i < count; i++) {
      uint8_t* bytes = read_range(ranges[i].path, ranges[i].offset, ranges[i].length);
      CHECK(bytes != NULL);
      if (bytes == NULL) continue;
      CHECK_OK(floe_task_fill(io, ranges[i].path, ranges[i].offset, bytes, (size_t)ranges[i].length));
      free(bytes); /* floe copied it */
    }
  }
  CHECK_OK(floe_task_io_free(io));
  return rows;
}

void test_task_host_io(void) {
  const char* names[] = {"impala_iceberg_v3_deletion_vectors", "impala_iceberg_v2_partitioned_position_deletes",
                         "duckdb_equality_deletes/mytable_partitioned", "duckdb_lineitem_iceberg"};
  for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
    const struct fixture* f = fixture_named(names[n]);
    floe_table* t = open_fixture(f->name);
    if (t == NULL) continue;
    floe_scan* s = NULL;
    CHECK_OK(floe_scan_open(t, "{\"split_size\": 4096}", &s));
    floe_table_free(t);
    if (s == NULL) continue;
    int64_t tasks = 0, rows = 0;
    CHECK_OK(floe_scan_plan(s, &tasks));
    for (int64_t i = 0; i < tasks && rows >= 0; i++) {
      uint8_t* bytes = NULL;
      size_t len = 0;
      CHECK_OK(floe_scan_task(s, i, &bytes, &len));
      int64_t got = host_read(bytes, len, NULL);
      floe_bytes_free(bytes);
      rows = got < 0 ? -1 : rows + got;
    }
    if (rows != f->rows) {
      atomic_fetch_add(&test_failures, 1);
      fprintf(stderr, "%s: host-driven reads gave %lld rows, want %lld\n", f->name, (long long)rows, f->rows);
    }
    floe_scan_free(s);
  }
  /* Streaming before the ranges are filled fails with a message; bad
   * arguments are refused. */
  floe_table* t = open_fixture("duckdb_lineitem_iceberg");
  if (t == NULL) return;
  floe_scan* s = NULL;
  CHECK_OK(floe_scan_open(t, NULL, &s));
  floe_table_free(t);
  uint8_t* bytes = NULL;
  size_t len = 0;
  CHECK_OK(floe_scan_task(s, 0, &bytes, &len));
  floe_scan_free(s);
  /* A task carries no read settings: the host gives them (the scan's
   * limit, say), and a bad one is refused. */
  CHECK_EQ_I64(host_read(bytes, len, "{\"limit\": 1000, \"batch_size\": 300}"), 1000);
  floe_task_io* io = NULL;
  CHECK_STATUS(floe_task_io_open(bytes, len, "{\"limit\": -1}", &io), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_task_io_open(bytes, len, "{\"location_map\": {}}", &io), FLOE_INVALID_ARGUMENT);
  CHECK_OK(floe_task_io_open(bytes, len, NULL, &io));
  floe_bytes_free(bytes);
  struct ArrowArrayStream stream;
  CHECK_OK(floe_task_io_stream(io, &stream));
  struct ArrowArray b;
  CHECK(stream.get_next(&stream, &b) != 0);
  CHECK(strstr(stream.get_last_error(&stream), "not filled by the host") != NULL);
  stream.release(&stream);
  CHECK_STATUS(floe_task_fill(io, "/nowhere.parquet", 0, (const uint8_t*)"x", 1), FLOE_INVALID_ARGUMENT);
  CHECK_STATUS(floe_task_io_open((const uint8_t*)"{}", 2, NULL, &io), FLOE_INVALID_ARGUMENT);
  CHECK_OK(floe_task_io_free(io));
}
