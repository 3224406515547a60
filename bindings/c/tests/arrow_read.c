#include "arrow_read.h"

#include <stdio.h>
#include <string.h>

int schema_field(const struct ArrowSchema* schema, const char* name) {
  for (int64_t i = 0; i < schema->n_children; i++)
    if (strcmp(schema->children[i]->name, name) == 0) return (int)i;
  return -1;
}

bool arrow_is_null(const struct ArrowArray* a, int64_t i) {
  const uint8_t* validity = a->buffers[0];
  if (validity == NULL) return false;
  int64_t bit = a->offset + i;
  return (validity[bit / 8] & (1u << (bit % 8))) == 0;
}

bool arrow_bool(const struct ArrowArray* a, int64_t i) {
  const uint8_t* bits = a->buffers[1];
  int64_t bit = a->offset + i;
  return (bits[bit / 8] & (1u << (bit % 8))) != 0;
}

int32_t arrow_i32(const struct ArrowArray* a, int64_t i) { return ((const int32_t*)a->buffers[1])[a->offset + i]; }

int64_t arrow_i64(const struct ArrowArray* a, int64_t i) { return ((const int64_t*)a->buffers[1])[a->offset + i]; }

float arrow_f32(const struct ArrowArray* a, int64_t i) { return ((const float*)a->buffers[1])[a->offset + i]; }

double arrow_f64(const struct ArrowArray* a, int64_t i) { return ((const double*)a->buffers[1])[a->offset + i]; }

int64_t arrow_decimal_lo(const struct ArrowArray* a, int64_t i) {
  int64_t lo;
  memcpy(&lo, (const uint8_t*)a->buffers[1] + 16 * (a->offset + i), sizeof lo);
  return lo;
}

const uint8_t* arrow_bytes(const struct ArrowArray* a, int64_t i, int32_t* len) {
  const int32_t* offsets = a->buffers[1];
  int32_t start = offsets[a->offset + i], end = offsets[a->offset + i + 1];
  *len = end - start;
  return (const uint8_t*)a->buffers[2] + start;
}

const uint8_t* arrow_fixed(const struct ArrowArray* a, int64_t i, int width) {
  return (const uint8_t*)a->buffers[1] + (int64_t)width * (a->offset + i);
}

int64_t stream_count_rows(struct ArrowArrayStream* stream, int64_t* batches) {
  int64_t rows = 0, n = 0;
  for (;;) {
    struct ArrowArray batch;
    int rc = stream->get_next(stream, &batch);
    if (rc != 0) {
      const char* msg = stream->get_last_error(stream);
      fprintf(stderr, "get_next: errno %d: %s\n", rc, msg ? msg : "(no message)");
      stream->release(stream);
      return -1;
    }
    if (batch.release == NULL) break;
    rows += batch.length;
    n++;
    batch.release(&batch);
  }
  stream->release(stream);
  if (batches != NULL) *batches = n;
  return rows;
}
