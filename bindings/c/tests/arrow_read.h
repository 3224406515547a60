/* Reading the Arrow C data floe exports, for checks in tests. */
#ifndef FLOE_TEST_ARROW_READ_H
#define FLOE_TEST_ARROW_READ_H

#include <stdbool.h>
#include <stdint.h>

#include "floe.h"

/* Index of the top-level field called name, or -1. */
int schema_field(const struct ArrowSchema* schema, const char* name);

/* Value readers for row i of a column (the child array of a batch). */
bool arrow_is_null(const struct ArrowArray* a, int64_t i);
bool arrow_bool(const struct ArrowArray* a, int64_t i);
int32_t arrow_i32(const struct ArrowArray* a, int64_t i);
int64_t arrow_i64(const struct ArrowArray* a, int64_t i);
float arrow_f32(const struct ArrowArray* a, int64_t i);
double arrow_f64(const struct ArrowArray* a, int64_t i);
/* The low 64 bits of a decimal128 (exact for |unscaled| < 2^63). */
int64_t arrow_decimal_lo(const struct ArrowArray* a, int64_t i);
/* A utf8/binary value: its bytes (not NUL-terminated) and length. */
const uint8_t* arrow_bytes(const struct ArrowArray* a, int64_t i, int32_t* len);
/* A fixed_size_binary value of the given width. */
const uint8_t* arrow_fixed(const struct ArrowArray* a, int64_t i, int width);

/* Reads a whole stream, releasing every batch and the stream itself.
 * Returns the number of rows, or -1 (with the stream's error printed) on
 * failure. batches, if not NULL, receives the batch count. */
int64_t stream_count_rows(struct ArrowArrayStream* stream, int64_t* batches);

#endif
