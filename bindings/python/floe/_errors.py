"""floe's status codes and the exception that carries them."""

import enum


class Status(enum.IntEnum):
    """The codes of enum floe_status (include/floe.h)."""

    OK = 0
    INVALID_ARGUMENT = 1
    NOT_FOUND = 2
    IO = 3
    FORMAT = 4
    UNSUPPORTED = 5
    CONFLICT = 6
    INTERNAL = 7
    COMMIT_STATE_UNKNOWN = 8
    UNAUTHORIZED = 9
    CANCELLED = 10
    TIMEOUT = 11


class FloeError(Exception):
    """A failed floe call: ``code`` is a Status (or an int floe added
    later), ``message`` floe's description."""

    def __init__(self, code, message):
        try:
            code = Status(code)
        except ValueError:
            pass
        self.code = code
        self.message = message
        name = code.name if isinstance(code, Status) else f"status {code}"
        super().__init__(f"{name}: {message}")

    def __reduce__(self):
        return (FloeError, (int(self.code), self.message))
