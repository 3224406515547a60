"""Partition spec and sort order changes with pyiceberg's names
(UpdateSpec, UpdateSortOrder). Transforms are Iceberg's spelling
("day", "bucket[16]", "truncate[4]") or pyiceberg's Transform objects,
whose str() is that spelling."""

from ._transaction import _Update, _enum_value, _path


def _transform(t):
    if t is None:
        return "identity"
    return str(t)


class UpdateSpec(_Update):
    """pyiceberg's UpdateSpec: the changes become one new default spec."""

    def __init__(self, transaction, autocommit, case_sensitive=True):
        super().__init__(transaction, autocommit)
        self._case_sensitive = bool(case_sensitive)

    def _change(self, action):
        if not self._case_sensitive and "source" in action:
            action["case-sensitive"] = False
        return self._add(action)

    def add_field(self, source_column_name, transform, partition_field_name=None):
        """Partitions by transform of the column; the field is named as
        Java names it unless partition_field_name is given."""
        action = {"action": "add-partition-field", "source": _path(source_column_name),
                  "transform": _transform(transform)}
        if partition_field_name is not None:
            action["name"] = str(partition_field_name)
        return self._change(action)

    def add_identity(self, source_column_name):
        return self.add_field(source_column_name, "identity")

    def remove_field(self, name):
        """Removes a partition field by its name (v1 tables keep it with
        the void transform, as the spec says)."""
        return self._change({"action": "remove-partition-field", "name": str(name)})

    def rename_field(self, name, new_name):
        return self._change({"action": "rename-partition-field", "name": str(name), "new-name": str(new_name)})


class UpdateSortOrder(_Update):
    """pyiceberg's UpdateSortOrder: asc and desc fields, in order, replace
    the default sort order when committed. The null order defaults to
    nulls last, as pyiceberg's does."""

    def __init__(self, transaction, autocommit, case_sensitive=True):
        super().__init__(transaction, autocommit)
        self._case_sensitive = bool(case_sensitive)
        self._fields = []

    def _field(self, source_column_name, transform, direction, null_order):
        self._fields.append({"source": _path(source_column_name), "transform": _transform(transform),
                             "direction": direction, "null-order": str(_enum_value(null_order))})
        return self

    def asc(self, source_column_name, transform=None, null_order="nulls-last"):
        return self._field(source_column_name, transform, "asc", null_order)

    def desc(self, source_column_name, transform=None, null_order="nulls-last"):
        return self._field(source_column_name, transform, "desc", null_order)

    def commit(self):
        action = {"action": "replace-sort-order", "fields": self._fields}
        if not self._case_sensitive:
            action["case-sensitive"] = False
        self._actions = [action]
        super().commit()
