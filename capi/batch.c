// Exported record batches: one malloc'd block per batch holds every
// ArrowArray of the batch's tree and their buffer and child pointer lists,
// with one reference per array. Releasing an array (after releasing the
// children it still owns) drops its reference; the last one hands the batch
// back to Go in a single call and frees the block. A consumer may move any
// child out and release it later, as the C data interface allows.
#include <stdlib.h>

#include "_cgo_export.h"
#include "capi.h"

// Buffers of zero length point here rather than being NULL, for consumers
// that do not expect NULL data buffers.
const uint8_t capi_zero_region[64] __attribute__((aligned(64)));

struct capi_batch* capi_batch_new(int64_t arrays, int64_t pointers, uintptr_t handle) {
  size_t size = sizeof(struct capi_batch) + (size_t)arrays * sizeof(struct ArrowArray) +
                (size_t)pointers * sizeof(void*);
  struct capi_batch* b = calloc(1, size);
  if (b == NULL) return NULL;
  b->refs = arrays;
  b->handle = handle;
  b->arrays = (struct ArrowArray*)(b + 1);
  b->pointers = (void**)(b->arrays + arrays);
  return b;
}

void capi_batch_release_array(struct ArrowArray* a) {
  if (a == NULL || a->release == NULL) return;
  for (int64_t i = 0; i < a->n_children; i++) {
    struct ArrowArray* child = a->children[i];
    if (child->release != NULL) child->release(child);
  }
  struct capi_batch* b = a->private_data;
  a->release = NULL;
  if (__atomic_sub_fetch(&b->refs, 1, __ATOMIC_ACQ_REL) == 0) {
    capiBatchRelease(b->handle);
    free(b);
  }
}
