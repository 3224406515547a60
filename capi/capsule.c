// Arrow PyCapsule Interface support for the ctypes binding. A capsule's
// destructor may run at interpreter exit, after the binding's module
// globals are gone, so it must not be a Python (ctypes) callback: it lives
// here, and finds CPython's PyCapsule_GetPointer in the running process.
#include <dlfcn.h>
#include <stdlib.h>

#include "capi.h"

static const char stream_capsule_name[] = "arrow_array_stream";
static const char schema_capsule_name[] = "arrow_schema";

typedef int (*capsule_is_valid_fn)(void* capsule, const char* name);
typedef void* (*capsule_get_pointer_fn)(void* capsule, const char* name);

struct ArrowArrayStream* floe_arrow_stream_new(void) { return calloc(1, sizeof(struct ArrowArrayStream)); }

struct ArrowSchema* floe_arrow_schema_new(void) { return calloc(1, sizeof(struct ArrowSchema)); }

const char* floe_capsule_stream_name(void) { return stream_capsule_name; }

const char* floe_capsule_schema_name(void) { return schema_capsule_name; }

// capsule_pointer returns the capsule's pointer, or NULL when this is not
// a valid capsule of that name or we are not inside Python. PyCapsule_IsValid
// is asked first because it never sets a Python exception, and a destructor
// may run while one is being handled.
static void* capsule_pointer(void* capsule, const char* name) {
  capsule_is_valid_fn is_valid = (capsule_is_valid_fn)dlsym(RTLD_DEFAULT, "PyCapsule_IsValid");
  capsule_get_pointer_fn get = (capsule_get_pointer_fn)dlsym(RTLD_DEFAULT, "PyCapsule_GetPointer");
  if (is_valid == NULL || get == NULL || capsule == NULL) return NULL;
  if (!is_valid(capsule, name)) return NULL;
  return get(capsule, name);
}

void floe_capsule_release_stream(void* capsule) {
  struct ArrowArrayStream* s = capsule_pointer(capsule, stream_capsule_name);
  if (s == NULL) return;
  if (s->release != NULL) s->release(s);
  free(s);
}

void floe_capsule_release_schema(void* capsule) {
  struct ArrowSchema* s = capsule_pointer(capsule, schema_capsule_name);
  if (s == NULL) return;
  if (s->release != NULL) s->release(s);
  free(s);
}
