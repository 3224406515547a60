"""Progress of long calls (``progress=``): the counts the CLI's status line
shows, handed to a callable, or drawn on the terminal with
``progress=True``.

Scans report after each batch they return, on the thread reading them.
Calls that block in libfloe (append, add_files, expire_snapshots) are
polled from a helper thread (floe_table_progress) while they run, so the
callable may be called from that thread; the last call, with the final
counts, is always on the caller's thread after the call returns."""

import dataclasses
import json
import sys
import threading
import time

# How often the status line is redrawn, how long a call runs before its
# first draw (a quick call shows nothing), and how often blocking calls are
# polled. Tests set them to 0.
DRAW_EVERY = 0.2
FIRST_DRAW = 0.5
POLL_EVERY = 0.1


@dataclasses.dataclass(frozen=True)
class Progress:
    """How far a long call is, as the CLI's status line counts it: files
    (or splits of files, or file groups: see ``noun``), their bytes and
    rows done, each of a total when it is known (else the total is None).
    A scan counts the tasks it has read to their end and the bytes of
    data they cover (what it reads is less: projection and pruning), and
    the rows it returned; an append the rows taken from its input; add_files
    the files whose footers it read and their bytes; expiry the files it
    deleted. Maintenance actions count steps (file groups for
    rewrite_data_files, with their input bytes), and ``p["action"]``,
    ``p["done"]``, ``p["total"]``, ``p["group"]`` read the C API's progress
    JSON as before."""

    verb: str
    files: int = 0
    files_total: int = None
    bytes: int = 0
    bytes_total: int = None
    rows: int = 0
    rows_total: int = None
    noun: str = "files"
    detail: dict = dataclasses.field(default=None, compare=False, repr=False)

    def __getitem__(self, key):
        return (self.detail or {})[key]

    def get(self, key, default=None):
        """A key of the C API's progress JSON (maintenance), or default."""
        return (self.detail or {}).get(key, default)

    @property
    def fraction(self):
        """How far the work is, by the finest measure with a known total:
        bytes, then rows, then files; None when none is known."""
        for done, total in ((self.bytes, self.bytes_total), (self.rows, self.rows_total),
                            (self.files, self.files_total)):
            if total:
                return done / total
        return None

    def __str__(self):
        parts = []
        if self.files_total:
            parts.append(f"{self.files}/{self.files_total} {self.noun}")
        elif self.files:
            parts.append(f"{self.files} {self.noun}")
        if self.bytes_total:
            parts.append(f"{_byte_size(self.bytes)} of {_byte_size(self.bytes_total)}")
        elif self.bytes:
            parts.append(_byte_size(self.bytes))
        if self.rows_total:
            parts.append(f"{_count(self.rows)} of {_count(self.rows_total)} rows")
        elif self.rows or not self.files:
            parts.append(f"{_count(self.rows)} rows")
        return f"{self.verb}: " + " · ".join(parts)


def _byte_size(n):
    if n < 1000:
        return f"{n} B"
    v, i = float(n), -1
    while v >= 1000 and i < 5:
        v /= 1000
        i += 1
    return f"{v:.1f} {'kMGTPE'[i]}B"


def _count(n):
    if n >= 1e9:
        return f"{n / 1e9:.1f} G"
    if n >= 1e6:
        return f"{n / 1e6:.1f} M"
    if n >= 1e4:
        return f"{n / 1e3:.1f} k"
    return str(n)


class StatusLine:
    """progress=True: one line on stderr, redrawn in place at most every
    DRAW_EVERY seconds once the call has run FIRST_DRAW seconds, with the
    rate and the time left, and cleared when the call ends. Only on a
    terminal: reporter() gives None when stderr is not one."""

    def __init__(self, stream):
        self._stream = stream
        self._start = time.monotonic()
        self._last_draw = None
        self._width = 0
        self._lock = threading.Lock()  # polled calls report from a helper thread

    def __call__(self, p):
        now = time.monotonic()
        with self._lock:
            if now - self._start < FIRST_DRAW:
                return
            if self._last_draw is not None and now - self._last_draw < DRAW_EVERY:
                return
            self._last_draw = now
            self._draw(self._render(p, now - self._start))

    def _render(self, p, elapsed):
        line = str(p)
        if elapsed > 0:
            if p.bytes:
                line += f" · {_byte_size(int(p.bytes / elapsed))}/s"
            elif p.rows:
                line += f" · {_count(int(p.rows / elapsed))} rows/s"
        f = p.fraction
        if f and 0 < f < 1 and elapsed >= 1:
            left = int(round(elapsed * (1 - f) / f))
            line += f" · {left // 60}:{left % 60:02d} left"
        return line

    def _draw(self, line):
        pad = " " * max(0, self._width - len(line))
        self._stream.write("\r" + line + pad)
        self._stream.flush()
        self._width = len(line)

    def finish(self):
        with self._lock:
            if self._width:
                self._stream.write("\r" + " " * self._width + "\r")
                self._stream.flush()
                self._width = 0


class _Reporter:
    """One call's reporting: hands each Progress to the callable (or the
    status line), never a smaller count after a larger one."""

    def __init__(self, fn):
        self._fn = fn
        self._last = None
        self._lock = threading.Lock()

    def __call__(self, p):
        with self._lock:
            if p == self._last:
                return
            self._last = p
        self._fn(p)

    def finish(self):
        if isinstance(self._fn, StatusLine):
            self._fn.finish()


def reporter(progress):
    """The reporter for a call's progress= argument: None for None or
    False, and for True when stderr is not a terminal (nothing is
    written then); the callable's reporter otherwise."""
    if progress is None or progress is False:
        return None
    if isinstance(progress, _Reporter):  # passed on by the call that made it
        return progress
    if progress is True:
        stream = sys.stderr
        try:
            terminal = stream is not None and stream.isatty()
        except (AttributeError, ValueError):  # a replaced or closed stderr
            terminal = False
        return _Reporter(StatusLine(stream)) if terminal else None
    if not callable(progress):
        raise TypeError(f"progress takes a callable or True, not {type(progress).__name__}")
    return _Reporter(progress)


def polled(table, progress, verb, call, rows_total=None, noun="files"):
    """Runs call() (a blocking libfloe call on table's handle), reporting
    floe_table_progress's counts every POLL_EVERY seconds from a helper
    thread and once more, final, on this thread. rows_total is the rows
    the caller knows its input holds (floe knows no total for a stream)."""
    rep = reporter(progress)
    if rep is None:
        return call()
    before = _table_progress(table)["call"]

    def sample():
        s = _table_progress(table)
        if s["call"] == before:  # our call has not started counting yet
            return None
        return Progress(verb, s["files"], s["files_total"] or None, s["bytes"], s["bytes_total"] or None,
                        s["rows"], s["rows_total"] or rows_total or None, noun)

    stop = threading.Event()

    def poll():
        while not stop.wait(POLL_EVERY):
            p = sample()
            if p is not None:
                rep(p)

    helper = threading.Thread(target=poll, name=f"floe {verb} progress", daemon=True)
    helper.start()
    try:
        result = call()
    except BaseException:
        stop.set()
        helper.join()
        rep.finish()
        raise
    stop.set()
    helper.join()
    p = sample()
    if p is not None:
        rep(p)
    rep.finish()
    return result


def _table_progress(table):
    import ctypes

    from ._calls import _check, _take_string
    from ._lib import library

    out = ctypes.c_void_p()
    _check(library().floe_table_progress(table._handle, ctypes.byref(out)))
    return json.loads(_take_string(out))


def maintenance_progress(action, detail):
    """A Progress from floe_table_maintain's progress JSON: steps (file
    groups of rewrite_data_files) done of the total."""
    noun = "groups" if action == "rewrite_data_files" else "steps"
    return Progress(detail.get("action", action), detail.get("done", 0), detail.get("total") or None,
                    noun=noun, detail=detail)
