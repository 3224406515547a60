package metadata

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
)

// The REST JSON forms of updates and requirements: an object named by its
// "action" (updates) or "type" (requirements), with the protocol's member
// names. Schemas, specs, sort orders and snapshots are written as in
// metadata files.

func marshalTagged(tag, name string, members any) ([]byte, error) {
	body, err := json.Marshal(members)
	if err != nil {
		return nil, err
	}
	head := fmt.Sprintf(`{%q:%q`, tag, name)
	if len(body) <= 2 { // {}
		return []byte(head + "}"), nil
	}
	return []byte(head + "," + string(body[1:])), nil
}

func (u AssignUUID) MarshalJSON() ([]byte, error) {
	return marshalTagged("action", u.Action(), struct {
		UUID string `json:"uuid"`
	}{u.UUID})
}

func (u UpgradeFormatVersion) MarshalJSON() ([]byte, error) {
	return marshalTagged("action", u.Action(), struct {
		V int `json:"format-version"`
	}{u.FormatVersion})
}

func (u AddSchema) MarshalJSON() ([]byte, error) {
	return marshalTagged("action", u.Action(), struct {
		Schema *iceberg.Schema `json:"schema"`
	}{u.Schema})
}

func (u SetCurrentSchema) MarshalJSON() ([]byte, error) {
	return marshalTagged("action", u.Action(), struct {
		ID int `json:"schema-id"`
	}{u.SchemaID})
}

func (u AddSpec) MarshalJSON() ([]byte, error) {
	return marshalTagged("action", u.Action(), struct {
		Spec iceberg.PartitionSpec `json:"spec"`
	}{u.Spec})
}

func (u SetDefaultSpec) MarshalJSON() ([]byte, error) {
	return marshalTagged("action", u.Action(), struct {
		ID int `json:"spec-id"`
	}{u.SpecID})
}

func (u AddSortOrder) MarshalJSON() ([]byte, error) {
	return marshalTagged("action", u.Action(), struct {
		Order iceberg.SortOrder `json:"sort-order"`
	}{u.SortOrder})
}

func (u SetDefaultSortOrder) MarshalJSON() ([]byte, error) {
	return marshalTagged("action", u.Action(), struct {
		ID int `json:"sort-order-id"`
	}{u.SortOrderID})
}

func (u AddSnapshot) MarshalJSON() ([]byte, error) {
	return marshalTagged("action", u.Action(), struct {
		Snapshot jsonSnapshot `json:"snapshot"`
	}{snapshotToJSON(&u.Snapshot)})
}

func (u SetSnapshotRef) MarshalJSON() ([]byte, error) {
	return marshalTagged("action", u.Action(), struct {
		Name string `json:"ref-name"`
		jsonRef
	}{u.Name, jsonRef(u.Ref)})
}

func (u RemoveSnapshots) MarshalJSON() ([]byte, error) {
	ids := u.SnapshotIDs
	if ids == nil {
		ids = []int64{}
	}
	return marshalTagged("action", u.Action(), struct {
		IDs []int64 `json:"snapshot-ids"`
	}{ids})
}

func (u RemoveSnapshotRef) MarshalJSON() ([]byte, error) {
	return marshalTagged("action", u.Action(), struct {
		Name string `json:"ref-name"`
	}{u.Name})
}

func (u SetLocation) MarshalJSON() ([]byte, error) {
	return marshalTagged("action", u.Action(), struct {
		Location string `json:"location"`
	}{u.Location})
}

func (u SetProperties) MarshalJSON() ([]byte, error) {
	updates := u.Updates
	if updates == nil {
		updates = map[string]string{}
	}
	return marshalTagged("action", u.Action(), struct {
		Updates map[string]string `json:"updates"`
	}{updates})
}

func (u RemoveProperties) MarshalJSON() ([]byte, error) {
	removals := u.Removals
	if removals == nil {
		removals = []string{}
	}
	return marshalTagged("action", u.Action(), struct {
		Removals []string `json:"removals"`
	}{removals})
}

// ParseUpdate reads one update in its REST JSON form. Actions floe does
// not apply (encryption keys, views) are refused as unsupported.
func ParseUpdate(raw []byte) (Update, error) {
	o := parseObject(raw, "update")
	var action string
	o.required("action", &action)
	if o.err != nil {
		return nil, errkind.Default(errkind.InvalidArgument, o.err)
	}
	o.what = fmt.Sprintf("%q update", action)
	var u Update
	switch action {
	case "assign-uuid":
		var x AssignUUID
		o.required("uuid", &x.UUID)
		u = x
	case "upgrade-format-version":
		var x UpgradeFormatVersion
		o.required("format-version", &x.FormatVersion)
		u = x
	case "add-schema":
		var x AddSchema
		o.requiredWith("schema", func(raw json.RawMessage) (err error) {
			x.Schema, err = parseSchema(raw)
			return err
		})
		u = x
	case "set-current-schema":
		var x SetCurrentSchema
		o.required("schema-id", &x.SchemaID)
		u = x
	case "add-spec":
		var x AddSpec
		o.requiredWith("spec", func(raw json.RawMessage) error { return x.Spec.UnmarshalJSON(raw) })
		u = x
	case "set-default-spec":
		var x SetDefaultSpec
		o.required("spec-id", &x.SpecID)
		u = x
	case "add-sort-order":
		var x AddSortOrder
		o.requiredWith("sort-order", func(raw json.RawMessage) error { return x.SortOrder.UnmarshalJSON(raw) })
		u = x
	case "set-default-sort-order":
		var x SetDefaultSortOrder
		o.required("sort-order-id", &x.SortOrderID)
		u = x
	case "add-snapshot":
		var x AddSnapshot
		o.requiredWith("snapshot", func(raw json.RawMessage) (err error) {
			x.Snapshot, err = parseSnapshot(raw, 0, 1)
			return err
		})
		u = x
	case "set-snapshot-ref":
		var x SetSnapshotRef
		o.required("ref-name", &x.Name)
		o.required("snapshot-id", &x.Ref.SnapshotID)
		o.required("type", &x.Ref.Type)
		x.Ref.Type = strings.ToLower(x.Ref.Type)
		o.optional("min-snapshots-to-keep", &x.Ref.MinSnapshotsToKeep)
		o.optional("max-snapshot-age-ms", &x.Ref.MaxSnapshotAgeMs)
		o.optional("max-ref-age-ms", &x.Ref.MaxRefAgeMs)
		u = x
	case "remove-snapshots":
		var x RemoveSnapshots
		o.required("snapshot-ids", &x.SnapshotIDs)
		u = x
	case "remove-snapshot-ref":
		var x RemoveSnapshotRef
		o.required("ref-name", &x.Name)
		u = x
	case "set-location":
		var x SetLocation
		o.required("location", &x.Location)
		u = x
	case "set-properties":
		var x SetProperties
		o.required("updates", &x.Updates)
		u = x
	case "remove-properties":
		var x RemoveProperties
		o.required("removals", &x.Removals)
		u = x
	default:
		var ok bool
		if u, ok = parseStatisticsUpdate(o, action); !ok {
			return nil, errkind.Errorf(errkind.Unsupported, "metadata update %q is not supported", action)
		}
	}
	if o.err != nil {
		return nil, errkind.Default(errkind.InvalidArgument, o.err)
	}
	return u, nil
}

func (r AssertCreate) MarshalJSON() ([]byte, error) {
	return marshalTagged("type", r.Type(), struct{}{})
}

func (r AssertTableUUID) MarshalJSON() ([]byte, error) {
	return marshalTagged("type", r.Type(), struct {
		UUID string `json:"uuid"`
	}{r.UUID})
}

func (r AssertRefSnapshotID) MarshalJSON() ([]byte, error) {
	// snapshot-id is required, null when the ref must not exist.
	return marshalTagged("type", r.Type(), struct {
		Ref        string `json:"ref"`
		SnapshotID *int64 `json:"snapshot-id"`
	}{r.Ref, r.SnapshotID})
}

func (r AssertLastAssignedFieldID) MarshalJSON() ([]byte, error) {
	return marshalTagged("type", r.Type(), struct {
		ID int `json:"last-assigned-field-id"`
	}{r.LastAssignedFieldID})
}

func (r AssertCurrentSchemaID) MarshalJSON() ([]byte, error) {
	return marshalTagged("type", r.Type(), struct {
		ID int `json:"current-schema-id"`
	}{r.CurrentSchemaID})
}

func (r AssertLastAssignedPartitionID) MarshalJSON() ([]byte, error) {
	return marshalTagged("type", r.Type(), struct {
		ID int `json:"last-assigned-partition-id"`
	}{r.LastAssignedPartitionID})
}

func (r AssertDefaultSpecID) MarshalJSON() ([]byte, error) {
	return marshalTagged("type", r.Type(), struct {
		ID int `json:"default-spec-id"`
	}{r.DefaultSpecID})
}

func (r AssertDefaultSortOrderID) MarshalJSON() ([]byte, error) {
	return marshalTagged("type", r.Type(), struct {
		ID int `json:"default-sort-order-id"`
	}{r.DefaultSortOrderID})
}

// ParseRequirement reads one requirement in its REST JSON form.
func ParseRequirement(raw []byte) (Requirement, error) {
	o := parseObject(raw, "requirement")
	var typ string
	o.required("type", &typ)
	if o.err != nil {
		return nil, errkind.Default(errkind.InvalidArgument, o.err)
	}
	o.what = fmt.Sprintf("%q requirement", typ)
	var r Requirement
	switch typ {
	case "assert-create":
		r = AssertCreate{}
	case "assert-table-uuid":
		var x AssertTableUUID
		o.required("uuid", &x.UUID)
		r = x
	case "assert-ref-snapshot-id":
		var x AssertRefSnapshotID
		o.required("ref", &x.Ref)
		// null (the ref must not exist) is a value here, not an absence
		if raw, present := o.members["snapshot-id"]; !present {
			o.fail("missing field %q", "snapshot-id")
		} else if !isNull(raw) {
			var id int64
			o.required("snapshot-id", &id)
			x.SnapshotID = &id
		}
		r = x
	case "assert-last-assigned-field-id":
		var x AssertLastAssignedFieldID
		o.required("last-assigned-field-id", &x.LastAssignedFieldID)
		r = x
	case "assert-current-schema-id":
		var x AssertCurrentSchemaID
		o.required("current-schema-id", &x.CurrentSchemaID)
		r = x
	case "assert-last-assigned-partition-id":
		var x AssertLastAssignedPartitionID
		o.required("last-assigned-partition-id", &x.LastAssignedPartitionID)
		r = x
	case "assert-default-spec-id":
		var x AssertDefaultSpecID
		o.required("default-spec-id", &x.DefaultSpecID)
		r = x
	case "assert-default-sort-order-id":
		var x AssertDefaultSortOrderID
		o.required("default-sort-order-id", &x.DefaultSortOrderID)
		r = x
	default:
		return nil, errkind.Errorf(errkind.Unsupported, "table requirement %q is not supported", typ)
	}
	if o.err != nil {
		return nil, errkind.Default(errkind.InvalidArgument, o.err)
	}
	return r, nil
}

// ParseUpdates and ParseRequirements read JSON arrays of each.
func ParseUpdates(raw []byte) ([]Update, error) {
	return parseArray(raw, "updates", ParseUpdate)
}

func ParseRequirements(raw []byte) ([]Requirement, error) {
	return parseArray(raw, "requirements", ParseRequirement)
}

func parseArray[T any](raw []byte, what string, one func([]byte) (T, error)) ([]T, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(bytes.TrimSpace(raw), &items); err != nil {
		return nil, errkind.Errorf(errkind.InvalidArgument, "%s must be a JSON array: %v", what, err)
	}
	out := make([]T, 0, len(items))
	for i, item := range items {
		x, err := one(item)
		if err != nil {
			return nil, fmt.Errorf("%s[%d]: %w", what, i, err)
		}
		out = append(out, x)
	}
	return out, nil
}
