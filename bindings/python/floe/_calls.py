"""Helpers shared by every wrapper of a floe call."""

import ctypes
import decimal
import json

from ._errors import FloeError, Status
from ._lib import library


def _check(rc):
    if rc != 0:
        msg = library().floe_last_error()
        raise FloeError(rc, msg.decode("utf-8", "replace") if msg else "")


def _c_str(text, what, show=True):
    """text as the UTF-8 C string a floe call takes. A C string ends at its
    first NUL, so a name or path holding one would reach floe cut short
    (("prod", "important\x00junk") naming prod.important): refused, naming
    text unless show is False (a URI may hold a password)."""
    if "\x00" in text:
        shown = f" {text!r}" if show else ""
        raise FloeError(Status.INVALID_ARGUMENT, f"{what}{shown} holds a NUL character")
    return text.encode("utf-8")


def _json_arg(value):
    return _dumps(value).encode("utf-8")


def _dumps(value):
    """JSON text of value, as json.dumps gives it, except that a
    decimal.Decimal becomes a JSON number with exactly its digits: a filter's
    literal such as Decimal("3.14159265358979323846264") must reach a
    decimal column unrounded, which a float could not carry."""
    out = []
    _encode(value, out)
    return "".join(out)


def _encode(value, out):
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            raise ValueError(f"{value} has no JSON form")
        out.append(str(value))  # always JSON's number syntax for finite values
    elif isinstance(value, dict):
        out.append("{")
        for i, (key, item) in enumerate(value.items()):
            if i:
                out.append(", ")
            out.append(json.dumps(key if isinstance(key, str) else str(key)))
            out.append(": ")
            _encode(item, out)
        out.append("}")
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(", ")
            _encode(item, out)
        out.append("]")
    else:
        out.append(json.dumps(value))


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
