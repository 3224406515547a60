package action

import (
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/metadata"
)

// UpdateSpec evolves the table's default partition spec (pyiceberg's
// update_spec, Java's UpdatePartitionSpec): fields added with any
// transform, removed, renamed. The calls are recorded and replayed on the
// metadata Build is given, by the rules of Java's BaseUpdatePartitionSpec
// (see specBuild); the first call that cannot apply is Build's error. The
// zero value is ready to use; names of source columns are dotted and
// matched exactly unless CaseSensitive(false).
//
// Build adds the new spec (its id one above the highest) and makes it
// the default; when the result equals a spec the table already has
// (fields, field ids, names and transforms, in order) that spec becomes
// the default again; when it is the default already, nothing changes.
// Data written before keeps its spec: planning projects a filter through
// each manifest's own spec, so files of both are pruned.
type UpdateSpec struct {
	ops             []specOp
	caseInsensitive bool
	err             error
}

type specOpKind int

const (
	specAdd specOpKind = iota
	specRemoveName
	specRemoveTransform
	specRename
)

// specOp is one recorded call.
type specOp struct {
	kind      specOpKind
	source    string // add, remove by transform
	transform iceberg.Transform
	name      string // add: the field's name ("" for the default); remove, rename: the field
	newName   string // rename
}

func (*UpdateSpec) Name() string { return "update-spec" }

// AddField partitions by transform of the source column (a dotted name).
// name "" names the field as Java does ("ts_day", "id_bucket_16",
// iceberg.DefaultPartitionName); on v2 and later a field that an earlier
// spec had for the same source and transform is brought back with its
// field id (and, without a name, its name).
func (u *UpdateSpec) AddField(source string, transform iceberg.Transform, name string) *UpdateSpec {
	if transform == nil {
		u.fail(invalid("add partition field on %q: no transform", source))
		return u
	}
	u.ops = append(u.ops, specOp{kind: specAdd, source: source, transform: transform, name: name})
	return u
}

// AddIdentity partitions by the source column's value, the field named
// as the column.
func (u *UpdateSpec) AddIdentity(source string) *UpdateSpec {
	return u.AddField(source, iceberg.IdentityTransform{}, "")
}

// RemoveField removes the partition field of that name. On v1 tables
// the field stays in the spec with the void transform (v1 numbers
// partition fields by position, so a field cannot go).
func (u *UpdateSpec) RemoveField(name string) *UpdateSpec {
	u.ops = append(u.ops, specOp{kind: specRemoveName, name: name})
	return u
}

// RemoveFieldBySource removes the partition field that applies transform
// to the source column.
func (u *UpdateSpec) RemoveFieldBySource(source string, transform iceberg.Transform) *UpdateSpec {
	if transform == nil {
		u.fail(invalid("remove partition field on %q: no transform", source))
		return u
	}
	u.ops = append(u.ops, specOp{kind: specRemoveTransform, source: source, transform: transform})
	return u
}

// RenameField renames a partition field of the default spec.
func (u *UpdateSpec) RenameField(name, newName string) *UpdateSpec {
	if newName == "" {
		u.fail(invalid("rename partition field %q: empty new name", name))
		return u
	}
	u.ops = append(u.ops, specOp{kind: specRename, name: name, newName: newName})
	return u
}

// CaseSensitive sets whether source column names match case exactly
// (the default) or ignoring case, for every call.
func (u *UpdateSpec) CaseSensitive(sensitive bool) *UpdateSpec {
	u.caseInsensitive = !sensitive
	return u
}

func (u *UpdateSpec) fail(err error) {
	if u.err == nil {
		u.err = err
	}
}

func (u *UpdateSpec) Build(md *metadata.Metadata) ([]metadata.Update, error) {
	if u.err != nil {
		return nil, u.err
	}
	b, err := newSpecBuild(md, !u.caseInsensitive)
	if err != nil {
		return nil, err
	}
	for _, op := range u.ops {
		switch op.kind {
		case specAdd:
			err = b.add(op.source, op.transform, op.name)
		case specRemoveName:
			err = b.removeByName(op.name)
		case specRemoveTransform:
			err = b.removeByTransform(op.source, op.transform)
		case specRename:
			err = b.rename(op.name, op.newName)
		}
		if err != nil {
			return nil, err
		}
	}
	spec, err := b.result()
	if err != nil {
		return nil, err
	}
	for _, s := range md.PartitionSpecs {
		if sameSpec(s.Fields, spec.Fields) {
			if s.ID == md.DefaultSpecID {
				return nil, nil
			}
			return []metadata.Update{metadata.SetDefaultSpec{SpecID: s.ID}}, nil
		}
	}
	spec.ID = 0
	for _, s := range md.PartitionSpecs {
		spec.ID = max(spec.ID, s.ID+1)
	}
	return []metadata.Update{metadata.AddSpec{Spec: spec}, metadata.SetDefaultSpec{SpecID: -1}}, nil
}

// sameSpec: the same fields in the same order, each with the same source,
// field id, name and transform (Java's compatibleWith).
func sameSpec(a, b []iceberg.PartitionField) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].SourceID != b[i].SourceID || a[i].FieldID != b[i].FieldID || a[i].Name != b[i].Name ||
			a[i].Transform.String() != b[i].Transform.String() {
			return false
		}
	}
	return true
}
