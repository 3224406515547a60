// Declarations shared by capi's C files and its Go preambles. Not installed:
// the public interface is include/floe.h.
#ifndef FLOE_CAPI_H
#define FLOE_CAPI_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "floe.h"

// errors.c: the calling thread's floe_last_error message.
void capi_clear_error(void);
void capi_set_error(const char* msg, size_t len);

// stream.c: points a stream's callbacks at the Go stream behind handle.
void capi_stream_init(struct ArrowArrayStream* out, uintptr_t handle);

// batch.c: exported record batches (see batch_export.go).
struct capi_batch {
  int64_t refs;       // arrays of the batch not yet released
  uintptr_t handle;   // the Go record batch
  struct ArrowArray* arrays;
  void** pointers;    // buffer and child pointer lists, carved per array
};
extern const uint8_t capi_zero_region[64];
struct capi_batch* capi_batch_new(int64_t arrays, int64_t pointers, uintptr_t handle);
void capi_batch_release_array(struct ArrowArray* a);

#endif
