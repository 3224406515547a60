"""Transactions: several changes to one table committed as one metadata
version (floe_table_transaction), with pyiceberg's names.

    with t.transaction() as tx:
        tx.set_properties(owner="etl")
        with tx.update_schema() as u:
            u.add_column("note", "string")
        tx.append(rows)
    # one new metadata version, one snapshot

Each change is an action object of the JSON list include/floe.h
documents; the builders (update_schema(), update_spec(),
update_sort_order(), manage_snapshots()) collect theirs and hand them to
the transaction when they commit (at the end of their ``with`` block, or
by commit()). Used on the table directly (``t.update_schema()``), a
builder commits alone."""

import base64
import ctypes
import json

from ._calls import _check, _json_arg, _take_string
from ._lib import library
from .expressions import _filter
from ._write import _case_resolved


def _path(path):
    """A column path as the action list takes it: a dotted name, or an
    array of names for pyiceberg's tuple form (floe joins it by dots)."""
    if isinstance(path, (tuple, list)):
        return [str(p) for p in path]
    return str(path)


def _enum_value(v):
    """pyiceberg's enums (NullOrder, SortDirection) by their value."""
    return getattr(v, "value", v)


class _Update:
    """What every builder shares: its actions, and committing them into a
    transaction (its own when made from the table)."""

    def __init__(self, transaction, autocommit):
        self._transaction = transaction
        self._autocommit = autocommit
        self._actions = []
        self._committed = False

    def _add(self, action):
        self._actions.append(action)
        return self

    def commit(self):
        """Hands the changes to the transaction; a builder made from the
        table commits them alone, now."""
        if self._committed:
            raise ValueError("this update was already committed")
        self._committed = True
        for action in self._actions:
            self._transaction._add(action)
        if self._autocommit:
            self._transaction.commit_transaction()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.commit()


class Transaction:
    """Changes to one table, committed together by commit_transaction() (or
    at the end of a ``with`` block that raised nothing) as one new
    metadata version; snapshot steps (append) make one snapshot each.
    When another writer committed first, the changes are built again on
    its version if what they depended on still holds, else FloeError
    (CONFLICT) is raised and nothing is committed. ``token`` makes the
    transaction idempotent, as a commit's token (it needs an append).
    After a commit, ``result`` is what floe_table_transaction returned
    (committed, snapshot_ids, metadata_location, current ids, refs)."""

    def __init__(self, table, token=None):
        self._table = table
        self._token = token
        self._actions = []
        self._written = []  # bytes from write_files, discarded unless committed
        self._done = False
        self.result = None

    @property
    def table_metadata(self):
        """The table's metadata as the transaction started from it."""
        return self._table.metadata

    def _add(self, action):
        if self._done:
            raise ValueError("the transaction was already committed")
        self._actions.append(action)
        return self

    def set_properties(self, properties=None, **kwargs):
        """Sets table properties (a dict, or keyword arguments)."""
        if properties and kwargs:
            raise ValueError("give properties as a dict or as keyword arguments, not both")
        updates = dict(properties or kwargs)
        if not updates:
            return self
        return self._add({"action": "set-properties", "updates": {str(k): str(v) for k, v in updates.items()}})

    def remove_properties(self, *removals):
        """Removes table properties by key (absent keys are fine)."""
        if not removals:
            return self
        return self._add({"action": "remove-properties", "removals": [str(k) for k in removals]})

    def upgrade_table_version(self, format_version):
        """Raises the table's format version (1 to 2 to 3, never down)."""
        return self._add({"action": "upgrade-format-version", "format-version": int(format_version)})

    def update_schema(self, allow_incompatible_changes=False, case_sensitive=True):
        from ._update_schema import UpdateSchema

        return UpdateSchema(self, False, allow_incompatible_changes, case_sensitive)

    def update_spec(self, case_sensitive=True):
        from ._update_spec import UpdateSpec

        return UpdateSpec(self, False, case_sensitive)

    def update_sort_order(self, case_sensitive=True):
        from ._update_spec import UpdateSortOrder

        return UpdateSortOrder(self, False, case_sensitive)

    def manage_snapshots(self):
        from ._manage_snapshots import ManageSnapshots

        return ManageSnapshots(self, False)

    def append(self, df, snapshot_properties=None, branch=None):
        """Writes df (anything Table.append takes) as data files now, and
        commits them with the transaction in one append snapshot. They are
        written as the table will be after the transaction's changes so
        far (a column added before is written), and deleted when the
        transaction does not commit them."""
        return self._add(self._files_action("append-files", df, snapshot_properties, branch))

    def dynamic_partition_overwrite(self, df, snapshot_properties=None, branch=None):
        """Writes df now, as append does, and commits it with the
        transaction in place of the rows of every partition it lands in
        (Table.dynamic_partition_overwrite), in one snapshot."""
        return self._add(self._files_action("replace-partitions-files", df, snapshot_properties, branch))

    def _files_action(self, name, df, snapshot_properties, branch):
        files = self._write_files(df)
        self._written.append(files)
        action = {"action": name, "files": base64.b64encode(files).decode("ascii")}
        if snapshot_properties:
            action["snapshot-properties"] = {str(k): str(v) for k, v in snapshot_properties.items()}
        if branch is not None:
            action["branch"] = str(branch)
        return action

    def delete(self, delete_filter, snapshot_properties=None, case_sensitive=True, branch=None, delete_mode=None):
        """Deletes the rows delete_filter selects (pyiceberg's text such as
        "id < 10", or a REST JSON expression dict), as Table.delete_rows
        does, in one snapshot of the transaction (none when no row
        matches). The filter is matched against the table as the
        transaction began; the delete or rewritten files are written when
        the transaction commits and deleted when it does not. delete_mode
        is "copy-on-write" or "merge-on-read" (default: the table's
        write.delete.mode). case_sensitive as Table.delete takes it."""
        delete_filter = _case_resolved(self._table, delete_filter, case_sensitive, "delete")
        return self._add(self._rows_action("delete-rows", delete_filter, snapshot_properties, True,
                                           branch, delete_mode))

    def overwrite(self, df, overwrite_filter="true", snapshot_properties=None, case_sensitive=True, branch=None,
                  delete_mode=None):
        """Replaces the rows overwrite_filter selects (default every row)
        with df, as pyiceberg's overwrite does: a delete snapshot, then an
        append snapshot of df's files (written now, as append writes
        them; none for an empty df). case_sensitive as Table.delete
        takes it."""
        overwrite_filter = _case_resolved(self._table, overwrite_filter, case_sensitive, "overwrite")
        action = self._rows_action("overwrite-rows", overwrite_filter, snapshot_properties, True,
                                   branch, delete_mode)
        files = self._write_files(df)
        self._written.append(files)
        action["files"] = base64.b64encode(files).decode("ascii")
        return self._add(action)

    def expire_snapshots(self, older_than_ms=None, retain_last=None, keep_files=False):
        """Expires snapshots as Table.expire_snapshots does, planned on
        what the transaction's earlier changes leave; files only the
        expired snapshots referenced are deleted once the transaction has
        committed. result["expire"] says what was done."""
        action = {"action": "expire-snapshots"}
        if older_than_ms is not None:
            action["older-than-ms"] = int(older_than_ms)
        if retain_last is not None:
            action["retain-last"] = int(retain_last)
        if keep_files:
            action["keep-files"] = True
        return self._add(action)

    @staticmethod
    def _rows_action(name, row_filter, snapshot_properties, case_sensitive, branch, delete_mode):
        if not case_sensitive:
            raise ValueError("floe matches a row filter's columns by their exact names (case_sensitive=True only)")
        if row_filter is None:
            raise ValueError("no row filter (use \"true\" for every row)")
        action = {"action": name, "filter": _filter(row_filter)}
        if snapshot_properties:
            action["snapshot-properties"] = {str(k): str(v) for k, v in snapshot_properties.items()}
        if branch is not None:
            action["branch"] = str(branch)
        if delete_mode is not None:
            action["delete-mode"] = str(delete_mode)
        return action

    def _write_files(self, df):
        """df's data files, written by a preview of the table as the
        changes so far leave it (it binds rows to that schema)."""
        if not self._actions:
            return self._table.write_files(df)
        handle = ctypes.c_void_p()
        _check(library().floe_table_transaction_preview(self._table._handle, _json_arg(self._actions),
                                                        ctypes.byref(handle)))
        preview = type(self._table)(handle.value, self._table._options)
        try:
            return preview.write_files(df)
        finally:
            preview.close()

    def _discard_written(self):
        written, self._written = self._written, []
        for files in written:
            self._table.discard_files(files)

    def commit_transaction(self):
        """Commits every change as one metadata version and returns the
        table, which now holds that version."""
        if self._done:
            raise ValueError("the transaction was already committed")
        self._done = True
        if not self._actions:
            return self._table
        opts = {}
        if self._token is not None:
            opts["token"] = str(self._token)
        if self._written:
            opts["discard_refused"] = True  # floe deletes them unless they are in the table
        self._written = []
        out = ctypes.c_void_p()
        _check(library().floe_table_transaction(self._table._handle, _json_arg(self._actions), _json_arg(opts),
                                                ctypes.byref(out)))
        self._table._metadata = None  # the handle holds the committed version
        self.result = json.loads(_take_string(out))
        return self._table

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.commit_transaction()
        elif not self._done:
            self._done = True
            try:
                self._discard_written()
            except Exception:  # the block's own error is what the caller needs
                pass


class TableChanges:
    """Mixed into Table: pyiceberg's ways of changing a table."""

    def transaction(self, token=None):
        """A transaction on this table (a context manager that commits
        when its block ends without an exception)."""
        return Transaction(self, token=token)

    def update_schema(self, allow_incompatible_changes=False, case_sensitive=True):
        """A schema change that commits alone (a context manager, or call
        commit()): add_column, rename_column, move_first/before/after,
        update_column, delete_column, make_column_optional,
        union_by_name, set_identifier_fields."""
        from ._update_schema import UpdateSchema

        return UpdateSchema(Transaction(self), True, allow_incompatible_changes, case_sensitive)

    def update_spec(self, case_sensitive=True):
        """A partition spec change that commits alone: add_field,
        add_identity, remove_field, rename_field."""
        from ._update_spec import UpdateSpec

        return UpdateSpec(Transaction(self), True, case_sensitive)

    def update_sort_order(self, case_sensitive=True):
        """A new sort order (asc, desc) that commits alone."""
        from ._update_spec import UpdateSortOrder

        return UpdateSortOrder(Transaction(self), True, case_sensitive)

    def manage_snapshots(self):
        """Branch, tag and rollback operations that commit alone."""
        from ._manage_snapshots import ManageSnapshots

        return ManageSnapshots(Transaction(self), True)
