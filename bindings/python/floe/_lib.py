"""Loading libfloe.so and declaring its C API (include/floe.h) for ctypes."""

import ctypes
import ctypes.util
import os
import threading

# ---- Arrow C Data Interface structures ------------------------------------


class ArrowSchema(ctypes.Structure):
    pass


ArrowSchema._fields_ = [
    ("format", ctypes.c_char_p),
    ("name", ctypes.c_char_p),
    ("metadata", ctypes.c_void_p),  # binary: int32 count, then length-prefixed pairs
    ("flags", ctypes.c_int64),
    ("n_children", ctypes.c_int64),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowSchema))),
    ("dictionary", ctypes.POINTER(ArrowSchema)),
    ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowSchema))),
    ("private_data", ctypes.c_void_p),
]


class ArrowArray(ctypes.Structure):
    pass


ArrowArray._fields_ = [
    ("length", ctypes.c_int64),
    ("null_count", ctypes.c_int64),
    ("offset", ctypes.c_int64),
    ("n_buffers", ctypes.c_int64),
    ("n_children", ctypes.c_int64),
    ("buffers", ctypes.POINTER(ctypes.c_void_p)),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowArray))),
    ("dictionary", ctypes.POINTER(ArrowArray)),
    ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArray))),
    ("private_data", ctypes.c_void_p),
]


class ArrowArrayStream(ctypes.Structure):
    pass


ArrowArrayStream._fields_ = [
    ("get_schema", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream), ctypes.POINTER(ArrowSchema))),
    ("get_next", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream), ctypes.POINTER(ArrowArray))),
    ("get_last_error", ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.POINTER(ArrowArrayStream))),
    ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArrayStream))),
    ("private_data", ctypes.c_void_p),
]

# floe_progress_fn: floe_table_maintain's progress callback (a JSON text and
# the call's user_data).
PROGRESS_FN = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_void_p)

# ---- finding and declaring the library ------------------------------------

_HERE = os.path.dirname(os.path.abspath(__file__))
_PACKAGED = os.path.join(_HERE, "libfloe.so")  # an installed package's own (setup.py)
_REPO_BUILD = os.path.normpath(os.path.join(_HERE, "..", "..", "..", "build", "libfloe.so"))


def _candidates():
    env = os.environ.get("FLOE_LIBRARY")
    if env:
        # An explicit choice is the only one: a typo should fail, not fall
        # back to some other build.
        return [env]
    found = [p for p in (_PACKAGED, _REPO_BUILD) if os.path.exists(p)]
    system = ctypes.util.find_library("floe")
    if system:
        found.append(system)
    return found


_c = ctypes
_P = ctypes.POINTER
_SIGNATURES = {
    "floe_version": (_c.c_char_p, []),
    "floe_last_error": (_c.c_char_p, []),
    "floe_status_name": (_c.c_char_p, [_c.c_int]),
    "floe_string_free": (None, [_c.c_void_p]),
    "floe_runtime_stats": (_c.c_int, [_P(_c.c_void_p)]),
    "floe_bytes_free": (None, [_c.c_void_p]),
    "floe_table_open": (_c.c_int, [_c.c_char_p, _c.c_char_p, _P(_c.c_void_p)]),
    "floe_table_metadata_json": (_c.c_int, [_c.c_void_p, _P(_c.c_void_p)]),
    "floe_table_metadata_location": (_c.c_int, [_c.c_void_p, _P(_c.c_void_p)]),
    "floe_table_free": (_c.c_int, [_c.c_void_p]),
    "floe_table_progress": (_c.c_int, [_c.c_void_p, _P(_c.c_void_p)]),
    "floe_scan_open": (_c.c_int, [_c.c_void_p, _c.c_char_p, _P(_c.c_void_p)]),
    "floe_scan_schema": (_c.c_int, [_c.c_void_p, _c.c_void_p]),
    "floe_scan_plan": (_c.c_int, [_c.c_void_p, _P(_c.c_int64)]),
    "floe_scan_count": (_c.c_int, [_c.c_void_p, _P(_c.c_int64)]),
    "floe_scan_task": (_c.c_int, [_c.c_void_p, _c.c_int64, _P(_c.c_void_p), _P(_c.c_size_t)]),
    "floe_scan_stream": (_c.c_int, [_c.c_void_p, _c.c_void_p]),
    "floe_scan_stream_options": (_c.c_int, [_c.c_void_p, _c.c_char_p, _c.c_void_p]),
    "floe_scan_add_filter": (_c.c_int, [_c.c_void_p, _c.c_char_p]),
    "floe_scan_metrics": (_c.c_int, [_c.c_void_p, _P(_c.c_void_p)]),
    "floe_scan_free": (_c.c_int, [_c.c_void_p]),
    "floe_scan_cancel": (_c.c_int, [_c.c_void_p]),
    "floe_task_stream": (_c.c_int, [_c.c_char_p, _c.c_size_t, _c.c_char_p, _c.c_void_p]),
    "floe_inspect": (_c.c_int, [_c.c_void_p, _c.c_char_p, _c.c_char_p, _c.c_void_p]),
    "floe_inspect_plan": (_c.c_int, [_c.c_void_p, _c.c_char_p, _c.c_char_p, _P(_c.c_void_p)]),
    "floe_arrow_stream_new": (_c.c_void_p, []),
    "floe_arrow_schema_new": (_c.c_void_p, []),
    "floe_capsule_stream_name": (_c.c_void_p, []),
    "floe_capsule_schema_name": (_c.c_void_p, []),
    "floe_capsule_release_stream": (None, [_c.c_void_p]),
    "floe_capsule_release_schema": (None, [_c.c_void_p]),
    "floe_binary_dictionary": (_c.c_int, [_c.c_void_p, _c.c_int64, _c.c_void_p, _c.c_int64, _c.c_int64, _c.c_void_p,
                                          _c.c_void_p, _P(_c.c_int64)]),
    "floe_table_create": (_c.c_int, [_c.c_char_p, _c.c_char_p, _c.c_char_p, _P(_c.c_void_p)]),
    "floe_append": (_c.c_int, [_c.c_void_p, _c.c_void_p, _c.c_char_p, _P(_c.c_int64)]),
    "floe_replace_partitions": (_c.c_int, [_c.c_void_p, _c.c_void_p, _c.c_char_p, _P(_c.c_int64)]),
    "floe_write_files": (_c.c_int, [_c.c_void_p, _c.c_void_p, _P(_c.c_void_p), _P(_c.c_size_t)]),
    "floe_append_files": (_c.c_int, [_c.c_void_p, _c.c_char_p, _c.c_size_t, _c.c_char_p, _P(_c.c_int64)]),
    "floe_replace_partitions_files": (_c.c_int, [_c.c_void_p, _c.c_char_p, _c.c_size_t, _c.c_char_p, _P(_c.c_int64)]),
    "floe_discard_files": (_c.c_int, [_c.c_void_p, _c.c_char_p, _c.c_size_t]),
    "floe_rewrite_plan": (_c.c_int, [_c.c_void_p, _c.c_char_p, _P(_c.c_void_p)]),
    "floe_rewrite_group": (_c.c_int, [_c.c_void_p, _c.c_char_p, _c.c_size_t, _c.c_char_p, _P(_c.c_void_p),
                                      _P(_c.c_size_t)]),
    "floe_rewrite_commit": (_c.c_int, [_c.c_void_p, _c.c_char_p, _c.c_size_t, _c.c_char_p, _P(_c.c_void_p)]),
    "floe_rewrite_discard": (_c.c_int, [_c.c_void_p, _c.c_char_p, _c.c_size_t]),
    "floe_table_transaction": (_c.c_int, [_c.c_void_p, _c.c_char_p, _c.c_char_p, _P(_c.c_void_p)]),
    "floe_table_transaction_preview": (_c.c_int, [_c.c_void_p, _c.c_char_p, _P(_c.c_void_p)]),
    "floe_schema_from_arrow": (_c.c_int, [_c.c_void_p, _P(_c.c_void_p)]),
    "floe_add_files": (_c.c_int, [_c.c_void_p, _c.c_char_p, _c.c_char_p, _P(_c.c_int64)]),
    "floe_commit": (_c.c_int, [_c.c_void_p, _c.c_char_p, _c.c_size_t, _c.c_char_p, _c.c_char_p, _P(_c.c_int64)]),
    "floe_task_io_open": (_c.c_int, [_c.c_char_p, _c.c_size_t, _c.c_char_p, _P(_c.c_void_p)]),
    "floe_task_needed_ranges": (_c.c_int, [_c.c_void_p, _c.c_void_p, _P(_c.c_size_t)]),
    "floe_task_fill": (_c.c_int, [_c.c_void_p, _c.c_char_p, _c.c_int64, _c.c_char_p, _c.c_size_t]),
    "floe_task_io_stream": (_c.c_int, [_c.c_void_p, _c.c_void_p]),
    "floe_task_io_free": (_c.c_int, [_c.c_void_p]),
    "floe_delete_rows": (_c.c_int, [_c.c_void_p, _c.c_char_p, _c.c_char_p, _P(_c.c_int64)]),
    "floe_overwrite": (_c.c_int, [_c.c_void_p, _c.c_char_p, _c.c_void_p, _c.c_char_p, _P(_c.c_int64)]),
    "floe_upsert": (_c.c_int, [_c.c_void_p, _c.c_void_p, _c.c_char_p, _P(_c.c_void_p)]),
    "floe_expire_snapshots": (_c.c_int, [_c.c_void_p, _c.c_char_p, _P(_c.c_void_p)]),
    "floe_table_maintain": (_c.c_int, [_c.c_void_p, _c.c_char_p, _c.c_char_p, PROGRESS_FN, _c.c_void_p,
                                       _P(_c.c_void_p)]),
    "floe_json_rows_stream": (_c.c_int, [_c.c_void_p, _c.c_char_p, _c.c_size_t, _c.c_void_p]),
    "floe_array_stream": (_c.c_int, [_c.c_void_p, _c.c_void_p, _c.c_void_p]),
    "floe_catalog_open": (_c.c_int, [_c.c_char_p, _c.c_char_p, _P(_c.c_void_p)]),
    "floe_catalog_free": (_c.c_int, [_c.c_void_p]),
    "floe_catalog_load_table": (_c.c_int, [_c.c_void_p, _c.c_char_p, _P(_c.c_void_p)]),
    "floe_catalog_create_table": (_c.c_int, [_c.c_void_p, _c.c_char_p, _c.c_char_p, _c.c_char_p, _P(_c.c_void_p)]),
    "floe_catalog_register_table": (_c.c_int, [_c.c_void_p, _c.c_char_p, _c.c_char_p, _P(_c.c_void_p)]),
    "floe_catalog_drop_table": (_c.c_int, [_c.c_void_p, _c.c_char_p, _c.c_int]),
    "floe_catalog_rename_table": (_c.c_int, [_c.c_void_p, _c.c_char_p, _c.c_char_p]),
    "floe_catalog_list_tables": (_c.c_int, [_c.c_void_p, _c.c_char_p, _P(_c.c_void_p)]),
    "floe_catalog_create_namespace": (_c.c_int, [_c.c_void_p, _c.c_char_p, _c.c_char_p]),
    "floe_catalog_drop_namespace": (_c.c_int, [_c.c_void_p, _c.c_char_p]),
    "floe_catalog_list_namespaces": (_c.c_int, [_c.c_void_p, _c.c_char_p, _P(_c.c_void_p)]),
    "floe_catalog_namespace_properties": (_c.c_int, [_c.c_void_p, _c.c_char_p, _P(_c.c_void_p)]),
    "floe_catalog_update_namespace_properties": (_c.c_int, [_c.c_void_p, _c.c_char_p, _c.c_char_p, _c.c_char_p]),
    "floe_catalog_exists": (_c.c_int, [_c.c_void_p, _c.c_char_p, _c.c_int, _P(_c.c_int)]),
    "floe_catalog_commit_transaction": (_c.c_int, [_c.c_void_p, _P(_c.c_void_p), _c.c_size_t, _c.c_char_p, _c.c_char_p,
                                                   _P(_c.c_void_p)]),
}

# Called holding the GIL (see python_objects): they make Python objects.
_PYTHON_SIGNATURES = {
    "floe_py_binary_objects": (_c.c_int64, [_c.c_void_p, _c.c_void_p, _c.c_void_p, _c.c_int64, _c.c_int64, _c.c_int32,
                                            _c.c_void_p]),
    "floe_py_int64_products": (_c.c_int64, [_c.c_void_p, _c.c_int64, _c.py_object, _c.c_void_p]),
    "floe_py_take_objects": (_c.c_int64, [_c.c_void_p, _c.c_int64, _c.c_void_p, _c.c_int32, _c.c_int64, _c.c_void_p]),
    "floe_py_swap_objects": (None, [_c.c_void_p, _c.c_void_p, _c.c_int64]),
}

_lock = threading.Lock()
_lib = None
_python_lib = None


def library():
    """The loaded libfloe (loaded on first use)."""
    global _lib
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is None:
            _lib = _load()
    return _lib


def _load():
    tried = []
    for path in _candidates():
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            tried.append(f"{path}: {e}")
            continue
        for name, (restype, argtypes) in _SIGNATURES.items():
            fn = getattr(lib, name)
            fn.restype = restype
            fn.argtypes = argtypes
        return lib
    hint = "; ".join(tried) if tried else "none found"
    raise OSError(
        "cannot load libfloe.so: set FLOE_LIBRARY to its path, build it with `make lib`, "
        "or install the package (pip install bindings/python) "
        f"(looked for {_PACKAGED}, {_REPO_BUILD} and the system library path: {hint})"
    )


def python_objects():
    """libfloe's functions that make Python objects (floe_py_*), loaded as
    ctypes.PyDLL: the GIL stays held through the call, and a Python
    exception the call set is raised after it."""
    global _python_lib
    if _python_lib is None:
        lib = ctypes.PyDLL(library()._name)
        for name, (restype, argtypes) in _PYTHON_SIGNATURES.items():
            fn = getattr(lib, name)
            fn.restype = restype
            fn.argtypes = argtypes
        _python_lib = lib
    return _python_lib
