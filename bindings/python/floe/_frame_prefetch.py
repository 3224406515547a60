"""A scan's batches read by a thread of their own, so floe decodes the
next batch while Python makes the objects of this one.

floe's stream decodes a batch when it is asked for one (a scan of one
file reads its row groups in turn), and ctypes lets go of the GIL for
the call: a second thread asking for batches keeps a second core
decoding while the first converts. That thread also runs the caller's
prepare on each batch (moving it out of the stream into its owner). A
bounded queue holds the batches read ahead (_AHEAD), so at most that
many wait (floe keeps their memory until their owner is gone).
"""

import queue
import threading

# Batches read ahead of the one being converted: one keeps the decoder
# busy; a second absorbs batches that convert unevenly.
_AHEAD = 2
_END = object()


class _Failed:
    __slots__ = ("error",)

    def __init__(self, error):
        self.error = error


def prefetched(batches, prepare):
    """Yields prepare(field, batch) for each of the (field, batch) pairs of
    batches, a generator read to its end by a thread of its own (prepare
    runs there too: it must move the batch out of the stream). The
    caller's exceptions stop the thread (the stream is released as the
    generator closes); the thread's (a read error, a progress callback's)
    are raised in the caller."""
    ahead = queue.Queue(_AHEAD)
    stop = threading.Event()

    def read():
        try:
            for field, batch in batches:
                item = prepare(field, batch)
                if stop.is_set():
                    return
                ahead.put(item)
                # An error's traceback holds this frame: it must not hold a batch.
                item = None
            ahead.put(_END)
        except BaseException as e:  # noqa: B902 - handed to the caller, who raises it
            ahead.put(_Failed(e))
        finally:
            batches.close()

    reader = threading.Thread(target=read, name="floe-to-pandas", daemon=True)
    reader.start()
    try:
        while True:
            item = ahead.get()
            if item is _END:
                return
            if isinstance(item, _Failed):
                raise item.error
            yield item
    finally:
        stop.set()
        # Unblock a reader waiting to put, then wait for it to release the
        # stream: nothing of the scan outlives the call.
        while reader.is_alive():
            try:
                ahead.get(timeout=0.05)
            except queue.Empty:
                pass
        reader.join()
