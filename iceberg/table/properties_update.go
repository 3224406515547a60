package table

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/metadata"
)

// reservedProperties are table properties the reference implementation
// never persists: they describe the metadata itself.
var reservedProperties = map[string]bool{
	"format-version": true, "uuid": true, "snapshot-count": true, "current-snapshot-id": true,
	"current-snapshot-summary": true, "current-snapshot-timestamp-ms": true, "current-schema": true,
	"default-partition-spec": true, "default-sort-order": true,
}

// SetProperties sets and removes table properties in one commit (a new
// metadata version, no snapshot). Removing a property that is not set is
// not an error; a key both set and removed is. When nothing would change,
// nothing is committed. Concurrent commits are built upon and retried.
func (t *Table) SetProperties(ctx context.Context, set map[string]string, remove []string) error {
	removing := map[string]bool{}
	for _, k := range remove {
		if _, both := set[k]; both {
			return fmt.Errorf("set properties: %q is both set and removed", k)
		}
		removing[k] = true
	}
	for k := range set {
		switch {
		case k == "":
			return fmt.Errorf("set properties: empty key")
		case reservedProperties[k]:
			return fmt.Errorf("set properties: %q is reserved: it describes the metadata and is not a table property", k)
		case k == PropExpiredTokens:
			return errkind.Errorf(errkind.InvalidArgument, "set properties: %q is written by expiry (the tokens of expired snapshots); set %s to bound it", k, PropTokenRetentionCount)
		}
	}
	res, err := t.commitMetadata(ctx, func(_ context.Context, base *Table, _ int) (*metadata.Changes, error) {
		changed := false
		for k, v := range set {
			if old, ok := base.Metadata.Properties[k]; !ok || old != v {
				changed = true
			}
		}
		for k := range removing {
			if _, ok := base.Metadata.Properties[k]; ok {
				changed = true
			}
		}
		if !changed {
			return nil, nil
		}
		changes := metadata.Edit(base.Metadata)
		var updates []metadata.Update
		if len(set) > 0 {
			updates = append(updates, metadata.SetProperties{Updates: maps.Clone(set)})
		}
		if len(removing) > 0 {
			updates = append(updates, metadata.RemoveProperties{Removals: slices.Sorted(maps.Keys(removing))})
		}
		if err := changes.Apply(updates...); err != nil {
			return nil, err
		}
		return changes, nil
	})
	if err != nil {
		return fmt.Errorf("set properties: %w", err)
	}
	*t = *res.Table
	return nil
}
