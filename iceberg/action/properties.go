package action

import (
	"maps"
	"slices"

	"github.com/floedb/floe/iceberg/metadata"
)

// ReservedProperties are keys the reference implementation never persists
// as table properties: they describe the metadata itself.
var ReservedProperties = map[string]bool{
	"format-version": true, "uuid": true, "snapshot-count": true, "current-snapshot-id": true,
	"current-snapshot-summary": true, "current-snapshot-timestamp-ms": true, "current-schema": true,
	"default-partition-spec": true, "default-sort-order": true,
}

// SetProperties sets and removes table properties (pyiceberg's
// set_properties and remove_properties). Removing a key that is not set is
// fine; a key both set and removed is refused, as are reserved keys and
// keys in Protected (properties floe itself maintains).
type SetProperties struct {
	Set    map[string]string
	Remove []string
	// Protected names keys callers may neither set nor remove, with the
	// reason.
	Protected map[string]string
}

func (SetProperties) Name() string { return "set-properties" }

func (a SetProperties) Build(md *metadata.Metadata) ([]metadata.Update, error) {
	removing := map[string]bool{}
	for _, k := range a.Remove {
		if _, both := a.Set[k]; both {
			return nil, invalid("property %q is both set and removed", k)
		}
		if a.Protected[k] != "" {
			return nil, invalid("property %q cannot be removed: %s", k, a.Protected[k])
		}
		removing[k] = true
	}
	for k := range a.Set {
		switch {
		case k == "":
			return nil, invalid("empty property key")
		case ReservedProperties[k]:
			return nil, invalid("property %q is reserved: it describes the metadata and is not a table property", k)
		case a.Protected[k] != "":
			return nil, invalid("property %q: %s", k, a.Protected[k])
		}
	}
	set := map[string]string{}
	for k, v := range a.Set {
		if old, ok := md.Properties[k]; !ok || old != v {
			set[k] = v
		}
	}
	var remove []string
	for k := range removing {
		if _, ok := md.Properties[k]; ok {
			remove = append(remove, k)
		}
	}
	var out []metadata.Update
	if len(set) > 0 {
		out = append(out, metadata.SetProperties{Updates: maps.Clone(set)})
	}
	if len(remove) > 0 {
		out = append(out, metadata.RemoveProperties{Removals: slices.Sorted(slices.Values(remove))})
	}
	return out, nil
}
