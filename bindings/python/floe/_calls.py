"""Helpers shared by every wrapper of a floe call."""

import ctypes
import json

from ._errors import FloeError
from ._lib import library


def _check(rc):
    if rc != 0:
        msg = library().floe_last_error()
        raise FloeError(rc, msg.decode("utf-8", "replace") if msg else "")


def _json_arg(value):
    return json.dumps(value).encode("utf-8")


def _take_string(ptr):
    """Copies and frees a string floe returned."""
    try:
        return ctypes.string_at(ptr.value).decode("utf-8")
    finally:
        library().floe_string_free(ptr)


def _take_bytes(ptr, size):
    """Copies and frees a byte buffer floe returned."""
    try:
        return ctypes.string_at(ptr.value, size.value)
    finally:
        library().floe_bytes_free(ptr)
