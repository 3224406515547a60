// Thread-local error messages for floe_last_error.
//
// Each host thread gets one malloc'd buffer, reached through a pthread key
// whose destructor frees it when the thread exits. (__thread storage holding
// a malloc'd pointer would leak it: nothing frees it at thread exit.)
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "capi.h"

struct error_slot {
  size_t cap;
  char msg[];
};

static pthread_key_t error_key;
static pthread_once_t error_key_once = PTHREAD_ONCE_INIT;
static const char no_error[] = "";

static void free_error_slot(void* slot) { free(slot); }

static void make_error_key(void) { pthread_key_create(&error_key, free_error_slot); }

const char* floe_last_error(void) {
  pthread_once(&error_key_once, make_error_key);
  struct error_slot* slot = pthread_getspecific(error_key);
  if (slot == NULL) return no_error;
  return slot->msg;
}

void capi_clear_error(void) {
  pthread_once(&error_key_once, make_error_key);
  struct error_slot* slot = pthread_getspecific(error_key);
  if (slot != NULL) slot->msg[0] = '\0';
}

// The buffer grows to the longest message seen on the thread and is reused;
// if it cannot grow, the message is truncated rather than lost.
void capi_set_error(const char* msg, size_t len) {
  pthread_once(&error_key_once, make_error_key);
  struct error_slot* slot = pthread_getspecific(error_key);
  if (slot == NULL || slot->cap < len + 1) {
    size_t cap = len + 1 < 256 ? 256 : len + 1;
    struct error_slot* grown = malloc(sizeof(struct error_slot) + cap);
    if (grown != NULL) {
      free(slot);
      grown->cap = cap;
      slot = grown;
      pthread_setspecific(error_key, slot);
    } else if (slot == NULL) {
      return;  // out of memory: floe_last_error will say "" for this failure
    } else {
      len = slot->cap - 1;
    }
  }
  if (len > 0) memcpy(slot->msg, msg, len);
  slot->msg[len] = '\0';
}
