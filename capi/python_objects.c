// Python objects made from Arrow buffers in a C loop, for the ctypes
// binding's to_pandas. Without a compiled extension, each str, bytes or
// Decimal of a column of distinct values cost an interpreted slice or
// call (1 M 30-byte comments: 144 ms; 1 M prices: 101 ms); here each is
// one call of CPython's own constructor (81 and 78 ms, the rest being
// the objects' memory). A column of shared objects is taken into its
// array in one pass (1 M rows: 3.5 ms, against 5.4 ms for numpy's fancy
// index then a copy into the column). CPython's functions are found in
// the running process, as capsule.c finds PyCapsule_GetPointer, so
// libfloe links nothing of Python and these return -1 outside it. The caller holds the
// GIL (ctypes.PyDLL) and checks for a Python exception afterwards.
#include <dlfcn.h>

#include "capi.h"

typedef void* (*decode_utf8_fn)(const char* s, ptrdiff_t size, const char* errors);
typedef void* (*bytes_from_fn)(const char* s, ptrdiff_t size);
typedef void* (*long_from_fn)(long long v);
typedef void* (*binary_op_fn)(void* a, void* b);
typedef void (*decref_fn)(void* o);
typedef void (*incref_fn)(void* o);
typedef void (*set_string_fn)(void* type, const char* message);

// put replaces out[i] (an owned reference, an object array's None) with
// made, releasing the one it held.
static void put(void** out, int64_t i, void* made, decref_fn decref) {
  void* old = out[i];
  out[i] = made;
  if (old != NULL) decref(old);
}

// python_api holds the CPython functions the loops call.
struct python_api {
  decode_utf8_fn decode_utf8;
  bytes_from_fn bytes_from;
  long_from_fn long_from;
  binary_op_fn multiply;
  incref_fn incref;
  decref_fn decref;
};

// find_python_api fills api from the running process; 0 outside CPython.
static int find_python_api(struct python_api* api) {
  api->decode_utf8 = (decode_utf8_fn)dlsym(RTLD_DEFAULT, "PyUnicode_DecodeUTF8");
  api->bytes_from = (bytes_from_fn)dlsym(RTLD_DEFAULT, "PyBytes_FromStringAndSize");
  api->long_from = (long_from_fn)dlsym(RTLD_DEFAULT, "PyLong_FromLongLong");
  api->multiply = (binary_op_fn)dlsym(RTLD_DEFAULT, "PyNumber_Multiply");
  api->incref = (incref_fn)dlsym(RTLD_DEFAULT, "Py_IncRef");
  api->decref = (decref_fn)dlsym(RTLD_DEFAULT, "Py_DecRef");
  return api->decode_utf8 != NULL && api->bytes_from != NULL && api->long_from != NULL && api->multiply != NULL &&
         api->incref != NULL && api->decref != NULL;
}

// value_error raises ValueError(message) in the interpreter.
static void value_error(const char* message) {
  set_string_fn set = (set_string_fn)dlsym(RTLD_DEFAULT, "PyErr_SetString");
  void** type = (void**)dlsym(RTLD_DEFAULT, "PyExc_ValueError");
  if (set != NULL && type != NULL) set(*type, message);
}

int64_t floe_py_binary_objects(const int64_t* starts, const int64_t* ends, const uint8_t* data, int64_t data_len,
                               int64_t n, int32_t text, void** out) {
  struct python_api api;
  if (!find_python_api(&api)) return -1;
  if (n < 0 || (n > 0 && (starts == NULL || ends == NULL || out == NULL))) {
    value_error("floe_py_binary_objects: n is negative, or starts, ends or out is NULL");
    return 0;
  }
  for (int64_t i = 0; i < n; i++) {
    int64_t start = starts[i], end = ends[i];
    if (start < 0 || end < start || end > data_len || (end > start && data == NULL)) {
      value_error("floe_py_binary_objects: a value's offsets leave its data");
      return i;
    }
    const char* p = (const char*)data + start;
    void* made = text ? api.decode_utf8(p, (ptrdiff_t)(end - start), NULL) : api.bytes_from(p, (ptrdiff_t)(end - start));
    if (made == NULL) return i;  // UnicodeDecodeError (or MemoryError) is set
    put(out, i, made, api.decref);
  }
  return n;
}

int64_t floe_py_int64_products(const int64_t* values, int64_t n, void* factor, void** out) {
  struct python_api api;
  if (!find_python_api(&api)) return -1;
  if (n < 0 || (n > 0 && (values == NULL || factor == NULL || out == NULL))) {
    value_error("floe_py_int64_products: n is negative, or values, factor or out is NULL");
    return 0;
  }
  for (int64_t i = 0; i < n; i++) {
    void* v = api.long_from(values[i]);
    if (v == NULL) return i;
    void* made = api.multiply(factor, v);
    api.decref(v);
    if (made == NULL) return i;  // the factor's type refused an int
    put(out, i, made, api.decref);
  }
  return n;
}

int64_t floe_py_take_objects(void* const* objects, int64_t n_objects, const void* codes, int32_t code_bytes, int64_t n,
                             void** out) {
  struct python_api api;
  if (!find_python_api(&api)) return -1;
  if (n < 0 || (n > 0 && (objects == NULL || codes == NULL || out == NULL || (code_bytes != 4 && code_bytes != 8)))) {
    value_error("floe_py_take_objects: n is negative, objects, codes or out is NULL, or codes are not 4 or 8 bytes");
    return 0;
  }
  for (int64_t i = 0; i < n; i++) {
    int64_t code = code_bytes == 4 ? ((const int32_t*)codes)[i] : ((const int64_t*)codes)[i];
    if (code < 0 || code >= n_objects) {
      value_error("floe_py_take_objects: a code is outside the objects");
      return i;
    }
    void* taken = objects[code];
    api.incref(taken);
    put(out, i, taken, api.decref);
  }
  return n;
}

void floe_py_swap_objects(void** a, void** b, int64_t n) {
  // One call, so nothing (a signal's exception, a tracer) runs between
  // the two halves of a move while both arrays hold the same references.
  for (int64_t i = 0; i < n; i++) {
    void* held = a[i];
    a[i] = b[i];
    b[i] = held;
  }
}
