"""Catalog.create_table_transaction: a new table and its first changes,
published in the catalog at once when the transaction commits.

    with cat.create_table_transaction("db.events", schema) as tx:
        tx.set_properties(owner="etl")
        tx.append(df)
    # only now does cat.table_exists("db.events") say True

libfloe has no staged create, so the table is staged as a table of its
own at the location the catalog would give it (a SQL catalog's
warehouse/namespace/name, or location=), invisible to the catalog: the
transaction's changes are committed to it, and the commit then registers
its metadata file under the identifier, one catalog insert that fails
(FloeError CONFLICT) when the identifier was taken meanwhile. So readers
of the catalog see no table, then the table with every change, as with
pyiceberg's CreateTableTransaction. The staged table is a local directory:
a transaction abandoned (its ``with`` block raised) or refused removes it
again when it created it."""

import os
import shutil

from ._errors import FloeError, Status
from ._transaction import Transaction


def _local_dir(location):
    """location as a local directory, or None for object storage."""
    if location.startswith("file://"):
        return location[len("file://"):]
    if "://" in location:
        return None
    return location


def stage(catalog, identifier, parts, location, create):
    """A CreateTableTransaction for catalog; create(location) makes the
    staged table (Table.create with the caller's arguments)."""
    if catalog._type != "sql":
        raise FloeError(Status.UNSUPPORTED, f"create_table_transaction {'.'.join(parts)}: floe stages a new table "
                        "and registers it at commit, which only its SQL catalogs do by location (a filesystem "
                        "warehouse finds tables by directory; floe's REST client has no staged create)")
    if location is None:
        warehouse = catalog._warehouse
        if not warehouse:
            raise FloeError(Status.INVALID_ARGUMENT, f"create_table_transaction {'.'.join(parts)}: the catalog "
                            "has no warehouse: give location=")
        location = "/".join([warehouse.rstrip("/")] + [p.strip("/") for p in parts])
    directory = _local_dir(str(location))
    if directory is None:
        raise FloeError(Status.UNSUPPORTED, f"create_table_transaction {'.'.join(parts)}: the table would be "
                        f"staged at {location}; floe stages on a local file system only")
    if catalog.table_exists(identifier):
        raise FloeError(Status.CONFLICT, f"create_table_transaction: table {'.'.join(parts)} already exists")
    created = not os.path.exists(directory)
    table = create(directory)
    return CreateTableTransaction(table, catalog, identifier, directory if created else None)


class CreateTableTransaction(Transaction):
    """pyiceberg's CreateTableTransaction: a Transaction (set_properties,
    update_schema, append, …) on a table that does not exist yet in the
    catalog. commit_transaction() (or the end of a ``with`` block that
    raised nothing) commits the changes and then publishes the table under
    its identifier in one catalog insert, and returns it as the catalog
    loads it; FloeError CONFLICT, nothing published, when the identifier
    was taken meanwhile."""

    def __init__(self, table, catalog, identifier, created_dir):
        super().__init__(table)
        self._catalog = catalog
        self._identifier = identifier
        self._created_dir = created_dir  # removed again unless published

    def commit_transaction(self):
        staged = self._table
        try:
            super().commit_transaction()
            published = self._catalog.register_table(self._identifier, staged.metadata_location)
        except BaseException:
            self._remove_staged()
            raise
        staged.close()
        return published

    def _remove_staged(self):
        self._table.close()
        if self._created_dir:
            shutil.rmtree(self._created_dir, ignore_errors=True)

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.commit_transaction()
            return
        super().__exit__(exc_type, exc, tb)  # deletes the files its appends wrote
        self._remove_staged()
