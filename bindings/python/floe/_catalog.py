"""Catalogs: tables by name, with pyiceberg's method names.

    cat = floe.load_catalog("local", uri="sqlite:///tmp/catalog.db")
    cat.create_namespace("db")
    t = cat.create_table("db.events", schema, partition_by=["day"])
    t.append(rows)                    # commits through the catalog
    cat.load_table(("db", "events")).scan().to_pylist()

The SQL catalog (uri ``sqlite:///abs/path.db``, ``sqlite:relative.db`` or
``postgresql://user:password@host:port/db`` with ``warehouse``) shares its
tables with pyiceberg's SqlCatalog, iceberg-go, iceberg-rust and Java's
JdbcCatalog; a REST catalog (uri ``http(s)://…``) is any server of the
Iceberg REST protocol; a directory (or ``file://…``, ``s3://…``) is a
filesystem warehouse. Failures raise FloeError: NOT_FOUND for a missing
table or namespace, CONFLICT for one that exists or a namespace that is
not empty, UNAUTHORIZED for refused credentials, COMMIT_STATE_UNKNOWN
for a commit whose answer never came (retry it with the same token).
"""

import ctypes
import json

from ._calls import _c_str, _check, _json_arg, _take_string
from ._config import resolve_catalog
from ._errors import FloeError, Status
from ._lib import library
from ._table import Table, _Handle
from ._write import _create_options, _schema_json


def _name(identifier):
    """"ns.t" or ("ns", "t") as floe's dotted name, refused when it holds a
    NUL (_c_str): every name reaches floe as a C string."""
    name = identifier if isinstance(identifier, str) else ".".join(identifier)
    _c_str(name, "name")
    return name


def _tuple(identifier):
    return tuple(identifier.split(".")) if isinstance(identifier, str) else tuple(identifier)


class Catalog(_Handle):
    """An open catalog. Tables it loads commit through it and keep it open
    until they are closed too."""

    _free_name = "floe_catalog_free"

    def __init__(self, handle, name, catalog_type=None, warehouse=None):
        super().__init__(handle)
        self.name = name
        # What create_table_transaction stages by: the catalog's type and
        # where its new tables go.
        self._type, self._warehouse = catalog_type, warehouse

    def _table(self, call, identifier, *args):
        handle = ctypes.c_void_p()
        _check(call(self._handle, _name(identifier).encode("utf-8"), *args, ctypes.byref(handle)))
        table = Table(handle.value, {}, reload=lambda: self.load_table(identifier))
        table._identifier = _tuple(identifier)  # Table.name(), as pyiceberg's
        return table

    def _json(self, call, *args):
        out = ctypes.c_void_p()
        _check(call(self._handle, *args, ctypes.byref(out)))
        return json.loads(_take_string(out))

    def load_table(self, identifier):
        return self._table(library().floe_catalog_load_table, identifier)

    def create_table(self, identifier, schema, location=None, partition_spec=None, sort_order=None, properties=None,
                     partition_by=None, format_version=None):
        """Creates the table (its namespace must exist) under the catalog's
        warehouse, or at location (pyiceberg's argument; a filesystem
        warehouse keeps a table only at its own place). schema,
        partition_spec, partition_by, sort_order and properties are as for
        Table.create."""
        opts = _create_options(partition_by=partition_by, partition_spec=partition_spec, sort_order=sort_order,
                               properties=properties, format_version=format_version,
                               location=None if location is None else str(location))
        schema_json = _schema_json(schema)
        return self._table(library().floe_catalog_create_table, identifier,
                           schema_json.encode("utf-8"), _json_arg(opts))

    def create_table_if_not_exists(self, identifier, schema, **kwargs):
        try:
            return self.create_table(identifier, schema, **kwargs)
        except FloeError as e:
            if e.code != Status.CONFLICT:
                raise
            return self.load_table(identifier)

    def create_table_transaction(self, identifier, schema, location=None, partition_spec=None, sort_order=None,
                                 properties=None, partition_by=None, format_version=None):
        """A transaction creating the table (arguments as create_table's):
        the table appears in the catalog when the transaction commits,
        with every change it holds, as pyiceberg's create_table_transaction
        does. floe stages the table at its location and registers it at
        commit (floe._create_transaction): SQL catalogs and local
        locations only (FloeError UNSUPPORTED otherwise); CONFLICT when
        the table exists now or by the commit."""
        from . import _create_transaction
        from ._table import Table

        def create(where):
            return Table.create(where, schema, partition_by=partition_by, partition_spec=partition_spec,
                                sort_order=sort_order, properties=properties, format_version=format_version)

        return _create_transaction.stage(self, identifier, _tuple(identifier), location, create)

    def register_table(self, identifier, metadata_location):
        return self._table(library().floe_catalog_register_table, identifier,
                           _c_str(str(metadata_location), "metadata location"))

    def commit_transaction(self, transactions):
        """Commits transactions (from Table.transaction(), on tables this
        catalog loaded) atomically: every table gets its changes, or none
        does. Returns the tables, which hold their committed versions;
        each transaction's ``result`` says what it committed. FloeError
        UNSUPPORTED when the catalog cannot (a filesystem warehouse, a REST
        server without POST /v1/{prefix}/transactions/commit), CONFLICT when
        what a transaction depended on changed: nothing committed."""
        from ._catalog_transaction import commit_transaction

        return commit_transaction(self, transactions)

    def table_exists(self, identifier):
        out = ctypes.c_int()
        _check(library().floe_catalog_exists(self._handle, _name(identifier).encode("utf-8"), 1, ctypes.byref(out)))
        return bool(out.value)

    def namespace_exists(self, namespace):
        out = ctypes.c_int()
        _check(library().floe_catalog_exists(self._handle, _name(namespace).encode("utf-8"), 0, ctypes.byref(out)))
        return bool(out.value)

    def drop_table(self, identifier):
        _check(library().floe_catalog_drop_table(self._handle, _name(identifier).encode("utf-8"), 0))

    def purge_table(self, identifier):
        _check(library().floe_catalog_drop_table(self._handle, _name(identifier).encode("utf-8"), 1))

    def rename_table(self, from_identifier, to_identifier):
        _check(library().floe_catalog_rename_table(self._handle, _name(from_identifier).encode("utf-8"),
                                                   _name(to_identifier).encode("utf-8")))
        return self.load_table(to_identifier)

    def list_tables(self, namespace):
        """The tables directly in namespace, as (namespace..., name) tuples."""
        return [tuple(t) for t in self._json(library().floe_catalog_list_tables, _name(namespace).encode("utf-8"))]

    def create_namespace(self, namespace, properties=None):
        props = {str(k): str(v) for k, v in (properties or {}).items()}
        _check(library().floe_catalog_create_namespace(self._handle, _name(namespace).encode("utf-8"),
                                                       _json_arg(props)))

    def create_namespace_if_not_exists(self, namespace, properties=None):
        try:
            self.create_namespace(namespace, properties)
        except FloeError as e:
            if e.code != Status.CONFLICT:
                raise

    def drop_namespace(self, namespace):
        _check(library().floe_catalog_drop_namespace(self._handle, _name(namespace).encode("utf-8")))

    def list_namespaces(self, namespace=()):
        """The namespaces directly below namespace (the top level by
        default), as tuples."""
        parent = _name(namespace).encode("utf-8") if namespace else None
        return [tuple(ns) for ns in self._json(library().floe_catalog_list_namespaces, parent)]

    def load_namespace_properties(self, namespace):
        return self._json(library().floe_catalog_namespace_properties, _name(namespace).encode("utf-8"))

    def update_namespace_properties(self, namespace, removals=None, updates=None):
        """Removes and sets properties; returns {"removed": [...],
        "updated": [...], "missing": [...]} as pyiceberg's summary does."""
        before = self.load_namespace_properties(namespace)
        removals = list(removals or [])
        updates = {str(k): str(v) for k, v in (updates or {}).items()}
        _check(library().floe_catalog_update_namespace_properties(
            self._handle, _name(namespace).encode("utf-8"), _json_arg(removals), _json_arg(updates)))
        return {"removed": [k for k in removals if k in before],
                "updated": sorted(updates), "missing": [k for k in removals if k not in before]}


def load_catalog(name=None, **properties):
    """Opens a catalog as pyiceberg's load_catalog does: name's properties
    from .pyiceberg.yaml and PYICEBERG_CATALOG__NAME__KEY variables under
    the explicit ones given here (floe/_config.py says where each is found
    and which wins; $FLOE_CATALOG is floe's own default). Properties have
    pyiceberg's names: ``uri`` (a SQL catalog: sqlite:…, postgresql://…; a
    REST catalog: http(s)://…; a filesystem warehouse: a directory,
    file://… or s3://…), ``type`` ("sql", "rest", "warehouse", or left out
    when the uri says), ``warehouse`` (SQL: where new tables go; REST: the
    warehouse asked for; warehouse: its root when there is no uri), REST
    auth (``credential`` "id:secret", ``token``, ``oauth2-server-uri``,
    ``scope``, ``rest.sigv4-enabled``, ``header.NAME``, ``ssl.cabundle``)
    and the tables' S3 settings (``s3.endpoint``, ``s3.region``,
    ``s3.access-key-id``, ``s3.secret-access-key``, ``s3.session-token``,
    ``s3.path-style-access``), and ``timeout-ms`` (a deadline on every
    call of the catalog and its tables: FloeError TIMEOUT past it).
    FloeError NOT_FOUND when nothing configures the catalog,
    INVALID_ARGUMENT for a malformed file (named) or a missing uri,
    UNAUTHORIZED for refused credentials; no message shows a secret."""
    cat = resolve_catalog(name, properties)
    handle = ctypes.c_void_p()
    _check(library().floe_catalog_open(_c_str(cat.uri, "catalog uri", show=False), _json_arg(cat.properties),
                                       ctypes.byref(handle)))
    return Catalog(handle.value, cat.name, cat.type, cat.properties.get("warehouse"))


__all__ = ["Catalog", "load_catalog"]
