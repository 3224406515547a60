"""pyiceberg's DataScan builder methods on floe.Scan: select, filter,
with_case_sensitive, use_ref, update, snapshot and projection.

A floe scan's options are fixed when libfloe opens it (its plan, filter
and columns are bound then), so each builder method opens a new scan: the
same options with one change, on the same table handle. The old scan is
left as it was. Filters added to a scan with add_filter() are added to
the new one too, so a builder never widens what a scan returns."""

import ctypes

from ._calls import _check, _json_arg
from ._lib import library
from .expressions import _filter
from ._table_info import TableInfo
from .schema import Schema
from .types import NestedField, StructType

# The options that choose which snapshot a scan reads.
_SNAPSHOT_KEYS = ("snapshot_id", "ref", "as_of_timestamp", "from_snapshot_id", "to_snapshot_id", "changelog")


class ScanFluent:
    """Mixed into floe.Scan. A scan made by Table.scan keeps the options it
    was opened with (_opts), the filters added since (_added) and the
    table metadata it was planned on (_scan_metadata)."""

    _opts: dict
    _added: list
    _scan_metadata = None

    def _reopen(self, opts, added=None):
        from ._table import _READ_KEYS

        table = self._table
        opts = dict(opts)
        metadata = self._planned_metadata()
        if not any(k in opts for k in _SNAPSHOT_KEYS):
            # pyiceberg's copy reads the snapshot the scan read: pin it
            # when the table handle has committed since.
            then = metadata.get("current-snapshot-id")
            if then not in (None, -1) and table.metadata.get("current-snapshot-id") != then:
                opts["snapshot_id"] = then
        handle = ctypes.c_void_p()
        _check(library().floe_scan_open(table._handle, _json_arg(opts), ctypes.byref(handle)))
        scan = type(self)(handle.value, table, {k: v for k, v in opts.items() if k in _READ_KEYS}, opts)
        try:
            for expr in self._added if added is None else added:
                scan.add_filter(expr)
        except BaseException:
            scan.close()
            raise
        return scan

    def _planned_metadata(self):
        if self._scan_metadata is None:
            self._scan_metadata = self._table.metadata
        return self._scan_metadata

    def select(self, *field_names):
        """A new scan of only these columns (dotted names for nested
        fields). A scan that already selects columns keeps those of them
        named here, as pyiceberg's select does (in the scan's order)."""
        opts = dict(self._opts)
        names = [str(n) for n in field_names]
        current = opts.get("columns")
        if current is None:
            if "*" in names:
                return self._reopen(opts)
            opts["columns"] = names
        else:
            opts["columns"] = [c for c in current if c in names]
        return self._reopen(opts)

    def filter(self, expr):
        """A new scan returning the rows this one returns that also match
        expr (text, a floe.expressions expression or a REST JSON dict):
        the two filters ANDed, as pyiceberg's filter does."""
        expr = _filter(expr)
        opts = dict(self._opts)
        current = opts.get("filter")
        if current is None:
            opts["filter"] = expr
            return self._reopen(opts)
        if isinstance(current, str) and isinstance(expr, str):
            opts["filter"] = f"({current}) and ({expr})"
            return self._reopen(opts)
        if isinstance(current, dict) and isinstance(expr, dict):
            opts["filter"] = {"type": "and", "left": current, "right": expr}
            return self._reopen(opts)
        # Text and JSON do not nest in one filter: the new one is added to
        # the new scan as add_filter adds it (the same rows).
        return self._reopen(opts, list(self._added) + [expr])

    def with_case_sensitive(self, case_sensitive=True):
        """A new scan matching column names (selected fields and filters)
        with or without regard to case."""
        opts = dict(self._opts)
        opts.pop("case_insensitive", None)
        if not case_sensitive:
            opts["case_insensitive"] = True
        return self._reopen(opts)

    def use_ref(self, name):
        """A new scan of the snapshot branch or tag name points at.
        ValueError when the scan already reads a chosen snapshot or the
        table has no such ref, as pyiceberg raises."""
        opts = dict(self._opts)
        for key in ("snapshot_id", "ref", "as_of_timestamp"):
            if opts.get(key) is not None:
                raise ValueError(f"Cannot override ref, already set {key.replace('_', ' ')}={opts[key]}")
        if name not in (self._planned_metadata().get("refs") or {}):
            raise ValueError(f"Cannot scan unknown ref={name}")
        # floe's ref option rather than the ref's snapshot id (pyiceberg's
        # way): a branch is read with the table's schema, as Java reads it.
        opts["ref"] = name
        return self._reopen(opts)

    def update(self, **overrides):
        """A new scan with some of pyiceberg's scan arguments replaced:
        row_filter, selected_fields, case_sensitive, snapshot_id, limit
        (and floe's other scan() keywords under their C API names, as
        ref, batch_size, threads). Filters added with add_filter stay."""
        opts = dict(self._opts)
        for key, value in overrides.items():
            if key == "row_filter":
                opts.pop("filter", None)
                if value is not None:
                    opts["filter"] = _filter(value)
            elif key == "selected_fields":
                opts.pop("columns", None)
                if value is not None and tuple(value) != ("*",):
                    opts["columns"] = [str(c) for c in value]
            elif key == "case_sensitive":
                opts.pop("case_insensitive", None)
                if not value:
                    opts["case_insensitive"] = True
            elif key == "options":
                opts.update(value or {})
            elif value is None:
                opts.pop(key, None)
            else:
                opts[key] = value
        return self._reopen(opts)

    def snapshot(self):
        """The Snapshot the scan reads (for an incremental or changelog
        scan, its last), or None for a table without one."""
        info = _MetadataView(self._planned_metadata())
        opts = self._opts
        sid = opts.get("snapshot_id", opts.get("to_snapshot_id"))
        if sid is not None:
            return info.snapshot_by_id(sid)
        if opts.get("ref") is not None:
            return info.snapshot_by_name(opts["ref"])
        if opts.get("as_of_timestamp") is not None:
            return info.snapshot_as_of_timestamp(opts["as_of_timestamp"])
        return info.current_snapshot()

    def projection(self):
        """The floe.schema.Schema of the rows the scan returns: the
        columns it reads, cut from the schema it reads them with (the
        snapshot's for a scan of a snapshot id, a time or a tag; else the
        table's current one, as floe reads); a selected nested field keeps
        its parent structs with just the fields selected in them, as
        pyiceberg's projection does."""
        info = _MetadataView(self._planned_metadata())
        schemas, current = info.schemas(), info.schema()
        snapshot = self.snapshot()
        opts = self._opts
        ref = (info.metadata.get("refs") or {}).get(opts.get("ref")) or {}
        of_snapshot = (opts.get("snapshot_id") is not None or opts.get("as_of_timestamp") is not None
                       or ref.get("type") == "tag")
        order = [current] + sorted(schemas.values(), key=lambda s: -s.schema_id)
        if of_snapshot and snapshot is not None and snapshot.schema_id in schemas:
            order.insert(0, schemas[snapshot.schema_id])
        arrow = self.schema.children
        want = [f.field_id for f in arrow if f.field_id is not None]
        schema = next((s for s in order if all(any(f.field_id == i for f in s.fields) for i in want)), current)
        fields = _cut(schema.fields, arrow)
        ids = [i for i in schema.identifier_field_ids if any(i == f.field_id for f in fields)]
        return Schema(*fields, schema_id=schema.schema_id, identifier_field_ids=ids)


class _MetadataView(TableInfo):
    """TableInfo's readers over the metadata dict the scan was planned on."""

    def __init__(self, metadata):
        self.metadata = metadata


def _cut(fields, arrow):
    """The NestedFields of the Arrow fields a scan returns (matched by
    field id, in the scan's order): a struct the scan returns part of
    keeps those children; lists, maps and whole columns are kept whole.
    Columns without a field id (a changelog's _change_type) are left out."""
    by_id = {f.field_id: f for f in fields}
    out = []
    for a in arrow:
        f = by_id.get(a.field_id)
        if f is None:
            continue
        if isinstance(f.field_type, StructType) and len(a.children) < len(f.field_type.fields):
            f = NestedField(f.field_id, f.name, StructType(*_cut(f.field_type.fields, a.children)), f.required,
                            f.doc, f.initial_default, f.write_default)
        out.append(f)
    return out
