// Arrow C stream callbacks. private_data holds the Go stream's handle as an
// integer; these trampolines hand it to Go as one, so Go never reads a
// handle out of a pointer-typed field.
#include <errno.h>
#include <string.h>

#include "_cgo_export.h"
#include "capi.h"

static int stream_get_schema(struct ArrowArrayStream* s, struct ArrowSchema* out) {
  if (s == NULL || s->release == NULL || out == NULL) return EINVAL;
  memset(out, 0, sizeof *out);
  return capiStreamGetSchema((uintptr_t)s->private_data, out);
}

static int stream_get_next(struct ArrowArrayStream* s, struct ArrowArray* out) {
  if (s == NULL || s->release == NULL || out == NULL) return EINVAL;
  memset(out, 0, sizeof *out);
  return capiStreamGetNext((uintptr_t)s->private_data, out);
}

static const char* stream_get_last_error(struct ArrowArrayStream* s) {
  if (s == NULL || s->release == NULL) return NULL;
  return capiStreamGetLastError((uintptr_t)s->private_data);
}

static void stream_release(struct ArrowArrayStream* s) {
  if (s == NULL || s->release == NULL) return;
  capiStreamRelease((uintptr_t)s->private_data);
  s->release = NULL;
  s->private_data = NULL;
}

void capi_stream_init(struct ArrowArrayStream* out, uintptr_t handle) {
  out->get_schema = stream_get_schema;
  out->get_next = stream_get_next;
  out->get_last_error = stream_get_last_error;
  out->release = stream_release;
  out->private_data = (void*)handle;
}
