"""Branches, tags and moving main, with pyiceberg's ManageSnapshots names
(and Java's for the operations pyiceberg lacks: rename_branch,
replace_branch, replace_tag, fast_forward, cherry_pick). The operations
apply in order, each seeing the refs the ones before it left, and commit
as one change."""

from ._transaction import _Update


def _retention(action, max_ref_age_ms=None, max_snapshot_age_ms=None, min_snapshots_to_keep=None):
    for key, value in (("max-ref-age-ms", max_ref_age_ms), ("max-snapshot-age-ms", max_snapshot_age_ms),
                       ("min-snapshots-to-keep", min_snapshots_to_keep)):
        if value is not None:
            action[key] = int(value)
    return action


def _snapshot(action, snapshot_id):
    if snapshot_id is not None:
        action["snapshot-id"] = int(snapshot_id)
    return action


class ManageSnapshots(_Update):
    """pyiceberg's ManageSnapshots. snapshot_id None means main's current
    snapshot where a branch or tag is created."""

    def create_tag(self, snapshot_id, tag_name, max_ref_age_ms=None):
        return self._add(_retention(_snapshot({"action": "create-tag", "name": str(tag_name)}, snapshot_id),
                                    max_ref_age_ms=max_ref_age_ms))

    def create_branch(self, snapshot_id, branch_name, max_ref_age_ms=None, max_snapshot_age_ms=None,
                      min_snapshots_to_keep=None):
        return self._add(_retention(_snapshot({"action": "create-branch", "name": str(branch_name)}, snapshot_id),
                                    max_ref_age_ms, max_snapshot_age_ms, min_snapshots_to_keep))

    def remove_tag(self, tag_name):
        return self._add({"action": "remove-tag", "name": str(tag_name)})

    def remove_branch(self, branch_name):
        return self._add({"action": "remove-branch", "name": str(branch_name)})

    def rename_branch(self, name, new_name):
        return self._add({"action": "rename-branch", "name": str(name), "new-name": str(new_name)})

    def replace_branch(self, name, snapshot_id=None, ref=None, max_ref_age_ms=None, max_snapshot_age_ms=None,
                       min_snapshots_to_keep=None):
        """Points branch name at a snapshot, or at the snapshot of another
        branch or tag (ref): Java's replaceBranch. A missing branch is
        created."""
        action = _snapshot({"action": "replace-branch", "name": str(name)}, snapshot_id)
        if ref is not None:
            action["ref"] = str(ref)
        return self._add(_retention(action, max_ref_age_ms, max_snapshot_age_ms, min_snapshots_to_keep))

    def replace_tag(self, name, snapshot_id, max_ref_age_ms=None):
        return self._add(_retention(_snapshot({"action": "replace-tag", "name": str(name)}, snapshot_id),
                                    max_ref_age_ms=max_ref_age_ms))

    def set_ref_retention(self, name, max_ref_age_ms=None, max_snapshot_age_ms=None, min_snapshots_to_keep=None):
        """Sets what expire_snapshots keeps of a branch or tag."""
        return self._add(_retention({"action": "set-ref-retention", "name": str(name)}, max_ref_age_ms,
                                    max_snapshot_age_ms, min_snapshots_to_keep))

    def fast_forward(self, branch_name, to):
        """Moves branch_name forward to the snapshot of branch or tag `to`
        (it must be an ancestor of it): write-audit-publish's last step,
        fast_forward("main", "audit")."""
        return self._add({"action": "fast-forward", "branch": str(branch_name), "to": str(to)})

    def rollback_to_snapshot(self, snapshot_id):
        """Moves main back to one of its ancestors."""
        return self._add({"action": "rollback-to-snapshot", "snapshot-id": int(snapshot_id)})

    def rollback_to_timestamp(self, timestamp):
        """Moves main back to its latest ancestor committed before
        timestamp (ms since the epoch)."""
        return self._add({"action": "rollback-to-timestamp", "timestamp-ms": int(timestamp)})

    def set_current_snapshot(self, snapshot_id=None, ref_name=None):
        """Points main at any snapshot, by id or by a branch or tag."""
        if (snapshot_id is None) == (ref_name is None):
            raise ValueError("Either snapshot_id or ref_name must be provided, not both")
        if ref_name is not None:
            return self._add({"action": "set-current-snapshot", "ref": str(ref_name)})
        return self._add({"action": "set-current-snapshot", "snapshot-id": int(snapshot_id)})

    def cherry_pick(self, snapshot_id):
        """Applies a snapshot's changes (an append, or an overwrite as
        Java allows) onto main: how a staged write-audit-publish snapshot
        is published."""
        return self._add({"action": "cherry-pick", "snapshot-id": int(snapshot_id)})
