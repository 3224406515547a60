package action_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/metadata"
)

// Partition spec evolution on tables other engines wrote: Spark's v2
// mytable_partitioned (identity(name); id int, name string, bir date),
// Spark's v1 iceberg_partitioned (hour(event_time), identity(action)),
// Impala's v3 test_default_part (spec 0 unpartitioned, spec 1
// identity(j)) and Hive's migrated v1 table of nested columns.

func sparkV2(t *testing.T) *metadata.Metadata {
	return readFixtureMetadata(t, "duckdb_equality_deletes/warehouse/mydb/mytable_partitioned", "v6.metadata.json")
}

func sparkV1(t *testing.T) *metadata.Metadata {
	return readFixtureMetadata(t, "impala_iceberg_partitioned", "v2.metadata.json")
}

// evolve builds a on md, applies the updates and replays them through
// their REST JSON form (replay): the metadata must be what was built.
func evolve(t *testing.T, md *metadata.Metadata, a action.Action) (*metadata.Metadata, []metadata.Update) {
	t.Helper()
	updates, err := a.Build(md)
	if err != nil {
		t.Fatalf("%s: %v", a.Name(), err)
	}
	c := metadata.Edit(md)
	if err := c.Apply(updates...); err != nil {
		t.Fatalf("%s: updates %v do not apply: %v", a.Name(), updates, err)
	}
	if len(updates) > 0 {
		replay(t, c)
	}
	if err := c.Metadata().Validate(); err != nil {
		t.Fatalf("%s: the evolved metadata is invalid: %v", a.Name(), err)
	}
	return c.Metadata(), updates
}

// refusedAction checks a's Build fails as an invalid argument whose
// message names every one of names.
func refusedAction(t *testing.T, md *metadata.Metadata, a action.Action, names ...string) {
	t.Helper()
	updates, err := a.Build(md)
	if err == nil {
		t.Fatalf("%s: built %v, want a refusal", a.Name(), updates)
	}
	if !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("%s: %v is not an invalid argument", a.Name(), err)
	}
	for _, n := range names {
		if !strings.Contains(err.Error(), n) {
			t.Errorf("%s: %q does not name %q", a.Name(), err, n)
		}
	}
}

// specString writes a spec's fields as name=transform(source)#id.
func specString(s *iceberg.PartitionSpec) string {
	parts := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		parts[i] = fmt.Sprintf("%s=%s(%d)#%d", f.Name, f.Transform, f.SourceID, f.FieldID)
	}
	return fmt.Sprintf("%d[%s]", s.ID, strings.Join(parts, " "))
}

func wantDefaultSpec(t *testing.T, md *metadata.Metadata, want string) {
	t.Helper()
	if got := specString(md.DefaultSpec()); got != want {
		t.Fatalf("default spec %s, want %s", got, want)
	}
}

func TestUpdateSpecAddsDayAndBucketFieldsOnSparkV2(t *testing.T) {
	md := sparkV2(t)
	next, updates := evolve(t, md, new(action.UpdateSpec).
		AddField("bir", iceberg.DayTransform{}, "").
		AddField("id", iceberg.BucketTransform{N: 16}, ""))
	if len(updates) != 2 || !reflect.DeepEqual(updates[1], metadata.SetDefaultSpec{SpecID: -1}) {
		t.Fatalf("updates %v, want add-spec and set-default-spec -1", updates)
	}
	wantDefaultSpec(t, next, "1[name=identity(2)#1000 bir_day=day(3)#1001 id_bucket_16=bucket[16](1)#1002]")
	if next.LastPartitionID != 1002 || len(next.PartitionSpecs) != 2 {
		t.Fatalf("last-partition-id %d, %d specs", next.LastPartitionID, len(next.PartitionSpecs))
	}
	if specString(next.SpecByID(0)) != specString(md.SpecByID(0)) {
		t.Fatal("spec 0 changed")
	}
}

func TestUpdateSpecNamesFieldsAsAsked(t *testing.T) {
	next, _ := evolve(t, sparkV2(t), new(action.UpdateSpec).
		AddField("bir", iceberg.MonthTransform{}, "birth_month").
		AddField("name", iceberg.TruncateTransform{Width: 2}, ""))
	wantDefaultSpec(t, next, "1[name=identity(2)#1000 birth_month=month(3)#1001 name_trunc_2=truncate[2](2)#1002]")
}

// Removing a field and adding it back in one update keeps it: nothing
// changes; and an update that asks nothing changes nothing.
func TestUpdateSpecThatChangesNothingYieldsNothing(t *testing.T) {
	md := sparkV2(t)
	for _, u := range []*action.UpdateSpec{
		new(action.UpdateSpec),
		new(action.UpdateSpec).RemoveField("name").AddIdentity("name"),
		new(action.UpdateSpec).RemoveFieldBySource("name", iceberg.IdentityTransform{}).AddField("name", iceberg.IdentityTransform{}, "name"),
	} {
		if updates, err := u.Build(md); err != nil || len(updates) != 0 {
			t.Fatalf("updates %v, %v; want none", updates, err)
		}
	}
	// Removed and added back under another name: a rename.
	next, _ := evolve(t, md, new(action.UpdateSpec).RemoveField("name").AddField("name", iceberg.IdentityTransform{}, "name_part"))
	wantDefaultSpec(t, next, "1[name_part=identity(2)#1000]")
}

// On v2 a removed field leaves the spec; adding the same source and
// transform later brings back its field id, and a spec equal to an
// earlier one is made the default again rather than added.
func TestUpdateSpecRemovesAndReusesFieldIDsOnV2(t *testing.T) {
	md := sparkV2(t)
	s1, _ := evolve(t, md, new(action.UpdateSpec).RemoveField("name").AddField("bir", iceberg.DayTransform{}, ""))
	wantDefaultSpec(t, s1, "1[bir_day=day(3)#1001]")
	s2, _ := evolve(t, s1, new(action.UpdateSpec).AddField("id", iceberg.BucketTransform{N: 8}, "").AddIdentity("name"))
	wantDefaultSpec(t, s2, "2[bir_day=day(3)#1001 id_bucket_8=bucket[8](1)#1002 name=identity(2)#1000]")
	if s2.LastPartitionID != 1002 {
		t.Fatalf("last-partition-id %d, want 1002: name's id 1000 is reused", s2.LastPartitionID)
	}
	back, updates := evolve(t, s2, new(action.UpdateSpec).
		RemoveField("bir_day").RemoveFieldBySource("id", iceberg.BucketTransform{N: 8}))
	// [name#1000] is exactly spec 0: it becomes the default again.
	if !reflect.DeepEqual(updates, []metadata.Update{metadata.SetDefaultSpec{SpecID: 0}}) {
		t.Fatalf("updates %v, want only set-default-spec 0", updates)
	}
	wantDefaultSpec(t, back, "0[name=identity(2)#1000]")
	if len(back.PartitionSpecs) != 3 {
		t.Fatalf("%d specs, want 3", len(back.PartitionSpecs))
	}
}

// Impala's v3 table went from unpartitioned (spec 0) to identity(j)
// (spec 1): removing j returns to spec 0.
func TestUpdateSpecReturnsToAnEarlierSpecOnImpalaV3(t *testing.T) {
	md := readFixtureMetadata(t, "impala_test_default_part", "v6.metadata.json")
	next, updates := evolve(t, md, new(action.UpdateSpec).RemoveField("j"))
	if !reflect.DeepEqual(updates, []metadata.Update{metadata.SetDefaultSpec{SpecID: 0}}) {
		t.Fatalf("updates %v, want set-default-spec 0", updates)
	}
	wantDefaultSpec(t, next, "0[]")
	again, _ := evolve(t, next, new(action.UpdateSpec).AddIdentity("j"))
	wantDefaultSpec(t, again, "1[j=identity(2)#1000]")
	bucket, _ := evolve(t, next, new(action.UpdateSpec).AddField("j", iceberg.BucketTransform{N: 4}, ""))
	wantDefaultSpec(t, bucket, "2[j_bucket_4=bucket[4](2)#1001]")
}

func TestUpdateSpecRenamesFields(t *testing.T) {
	md := sparkV1(t)
	next, _ := evolve(t, md, new(action.UpdateSpec).RenameField("event_time_hour", "hour_of_event"))
	wantDefaultSpec(t, next, "1[hour_of_event=hour(4)#1000 action=identity(3)#1001]")
	refusedAction(t, md, new(action.UpdateSpec).RenameField("evnt_time_hour", "h"), "evnt_time_hour", `did you mean "event_time_hour"`)
	// Two fields cannot end up with one name.
	refusedAction(t, md, new(action.UpdateSpec).RenameField("event_time_hour", "action"), `"action"`)
	refusedAction(t, md, new(action.UpdateSpec).RenameField("event_time_hour", "x").RenameField("action", "x"), `"x"`, "twice")
}

// v1 numbers partition fields by position: a removed field stays, void,
// and added fields take the next positions.
func TestUpdateSpecOnV1VoidsRemovedFields(t *testing.T) {
	md := sparkV1(t)
	s1, _ := evolve(t, md, new(action.UpdateSpec).
		RemoveField("event_time_hour").AddField("event_time", iceberg.DayTransform{}, ""))
	wantDefaultSpec(t, s1, "1[event_time_hour=void(4)#1000 action=identity(3)#1001 event_time_day=day(4)#1002]")
	// Partitioning by hour again: no id is reused on v1, and the void
	// field gives its name up to the new one, as Java renames it.
	s2, _ := evolve(t, s1, new(action.UpdateSpec).RemoveField("event_time_day").AddField("event_time", iceberg.HourTransform{}, ""))
	wantDefaultSpec(t, s2, "2[event_time_hour_1000=void(4)#1000 action=identity(3)#1001 event_time_day=void(4)#1002 event_time_hour=hour(4)#1003]")
	// A field removed in the same update gives its name up to a new one.
	s3, _ := evolve(t, md, new(action.UpdateSpec).RemoveField("event_time_hour").AddField("event_time", iceberg.DayTransform{}, "event_time_hour"))
	wantDefaultSpec(t, s3, "1[event_time_hour_1000=void(4)#1000 action=identity(3)#1001 event_time_hour=day(4)#1002]")
	// A rename onto a voided field's name moves the voided field aside.
	s4, _ := evolve(t, s1, new(action.UpdateSpec).RenameField("action", "event_time_hour"))
	wantDefaultSpec(t, s4, "2[event_time_hour_1000=void(4)#1000 event_time_hour=identity(3)#1001 event_time_day=day(4)#1002]")
}

func TestUpdateSpecOnNestedColumnsOfHiveV1(t *testing.T) {
	md := readFixtureMetadata(t, "impala_iceberg_migrated_complex_test", "v2.metadata.json")
	next, _ := evolve(t, md, new(action.UpdateSpec).
		AddField("struct_1_col.string_col", iceberg.BucketTransform{N: 4}, "").
		AddIdentity("struct_2_col.struct_3_col.float_col"))
	wantDefaultSpec(t, next, "1[struct_1_col.string_col_bucket_4=bucket[4](5)#1000 struct_2_col.struct_3_col.float_col=identity(14)#1001]")
	refusedAction(t, md, new(action.UpdateSpec).AddIdentity("struct_1_col.int_array_col.element"), "struct_1_col.int_array_col.element", "list")
	refusedAction(t, md, new(action.UpdateSpec).AddIdentity("int_bigint_map_col.key"), "int_bigint_map_col.key", "map")
	refusedAction(t, md, new(action.UpdateSpec).AddField("struct_1_col", iceberg.BucketTransform{N: 2}, ""), "struct_1_col", "primitive")
}

func TestUpdateSpecMatchesSourceNamesIgnoringCaseWhenAsked(t *testing.T) {
	md := sparkV2(t)
	refusedAction(t, md, new(action.UpdateSpec).AddField("BIR", iceberg.DayTransform{}, ""), `"BIR"`, `did you mean "bir"`)
	next, _ := evolve(t, md, new(action.UpdateSpec).CaseSensitive(false).AddField("BIR", iceberg.DayTransform{}, ""))
	wantDefaultSpec(t, next, "1[name=identity(2)#1000 bir_day=day(3)#1001]")
}

func TestUpdateSpecRefusals(t *testing.T) {
	md := sparkV2(t)
	for _, c := range []struct {
		what  string
		u     *action.UpdateSpec
		names []string
	}{
		{"transform not for the type", new(action.UpdateSpec).AddField("name", iceberg.DayTransform{}, ""), []string{`"name"`, "day"}},
		{"truncate on a date", new(action.UpdateSpec).AddField("bir", iceberg.TruncateTransform{Width: 3}, ""), []string{`"bir"`, "truncate[3]"}},
		{"unknown transform", new(action.UpdateSpec).AddField("id", iceberg.UnknownTransform{Name: "zorder"}, ""), []string{"zorder"}},
		{"no transform", new(action.UpdateSpec).AddField("id", nil, "").AddIdentity("bir"), []string{`"id"`}},
		{"duplicate of the spec's", new(action.UpdateSpec).AddIdentity("name"), []string{`"name"`, "already"}},
		{"added twice", new(action.UpdateSpec).AddField("id", iceberg.BucketTransform{N: 4}, "a").AddField("id", iceberg.BucketTransform{N: 4}, "b"), []string{`"id"`, "already added"}},
		{"redundant time fields", new(action.UpdateSpec).AddField("bir", iceberg.DayTransform{}, "").AddField("bir", iceberg.MonthTransform{}, ""), []string{"bir_day", "redundant"}},
		{"one name added twice", new(action.UpdateSpec).AddField("id", iceberg.BucketTransform{N: 4}, "p").AddField("bir", iceberg.YearTransform{}, "p"), []string{`"p"`}},
		{"add then remove", new(action.UpdateSpec).AddField("id", iceberg.BucketTransform{N: 4}, "").RemoveField("id_bucket_4"), []string{"id_bucket_4", "added"}},
		{"add then remove by source", new(action.UpdateSpec).AddField("id", iceberg.BucketTransform{N: 4}, "").RemoveFieldBySource("id", iceberg.BucketTransform{N: 4}), []string{"id", "added"}},
		{"rename an added field", new(action.UpdateSpec).AddField("id", iceberg.BucketTransform{N: 4}, "").RenameField("id_bucket_4", "b"), []string{"id_bucket_4"}},
		{"remove then rename", new(action.UpdateSpec).RemoveField("name").RenameField("name", "n"), []string{`"name"`, "removed"}},
		{"rename then remove", new(action.UpdateSpec).RenameField("name", "n").RemoveField("name"), []string{`"name"`, "renamed"}},
		{"unknown source column", new(action.UpdateSpec).AddIdentity("nmae"), []string{`"nmae"`, `did you mean "name"`}},
		{"remove a field that is not there", new(action.UpdateSpec).RemoveField("nam"), []string{`"nam"`, `did you mean "name"`}},
		{"remove by a transform that is not there", new(action.UpdateSpec).RemoveFieldBySource("name", iceberg.BucketTransform{N: 2}), []string{"bucket[2](name)", "name=identity(2)"}},
		{"a column's name for a day field", new(action.UpdateSpec).AddField("bir", iceberg.DayTransform{}, "id"), []string{`"id"`}},
		{"its own column's name for a day field", new(action.UpdateSpec).AddField("bir", iceberg.DayTransform{}, "bir"), []string{`"bir"`, "day"}},
		{"another column's name for an identity", new(action.UpdateSpec).AddField("id", iceberg.IdentityTransform{}, "bir"), []string{`"bir"`}},
		{"a name the spec has", new(action.UpdateSpec).AddField("id", iceberg.BucketTransform{N: 2}, "name"), []string{`"name"`}},
		{"an empty new name", new(action.UpdateSpec).RenameField("name", ""), []string{`"name"`}},
	} {
		t.Run(c.what, func(t *testing.T) { refusedAction(t, md, c.u, c.names...) })
	}
	// A column's own name is fine for its identity field.
	next, _ := evolve(t, md, new(action.UpdateSpec).RemoveField("name").AddField("id", iceberg.IdentityTransform{}, "id"))
	wantDefaultSpec(t, next, "1[id=identity(1)#1001]")
}

// Build runs again on each commit attempt: on metadata another writer
// moved on, the same action lays its field after theirs, with the next
// free id.
func TestUpdateSpecRebuildsOnNewerMetadata(t *testing.T) {
	md := sparkV2(t)
	mine := new(action.UpdateSpec).AddField("id", iceberg.BucketTransform{N: 16}, "")
	first, _ := evolve(t, md, mine)
	wantDefaultSpec(t, first, "1[name=identity(2)#1000 id_bucket_16=bucket[16](1)#1001]")
	theirs, _ := evolve(t, md, new(action.UpdateSpec).AddField("bir", iceberg.YearTransform{}, ""))
	retried, _ := evolve(t, theirs, mine)
	wantDefaultSpec(t, retried, "2[name=identity(2)#1000 bir_year=year(3)#1001 id_bucket_16=bucket[16](1)#1002]")
	// On metadata that already has the change, nothing is left to do.
	if updates, err := mine.Build(retried); err == nil || !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("building again on the result: %v, %v; want the duplicate refused", updates, err)
	}
}

// A table upgraded from v1 may have used one field id (a position) for
// different fields in different specs: an earlier spec's id is reused
// only when no field of the new spec has it.
func TestUpdateSpecDoesNotReuseAnIDTheSpecHas(t *testing.T) {
	md := sparkV1(t)
	c := metadata.Edit(md)
	foreign := iceberg.PartitionSpec{ID: 1, Fields: []iceberg.PartitionField{
		{SourceID: 1, FieldID: 1000, Name: "id_bucket_2", Transform: iceberg.BucketTransform{N: 2}},
	}}
	if err := c.Apply(metadata.AddSpec{Spec: foreign}, metadata.SetDefaultSpec{SpecID: -1}, metadata.UpgradeFormatVersion{FormatVersion: 2}); err != nil {
		t.Fatal(err)
	}
	next, _ := evolve(t, c.Metadata(), new(action.UpdateSpec).AddField("event_time", iceberg.HourTransform{}, ""))
	wantDefaultSpec(t, next, "2[id_bucket_2=bucket[2](1)#1000 event_time_hour=hour(4)#1002]")
	// Once the bucket field is gone, the hour field's id comes back.
	again, _ := evolve(t, c.Metadata(), new(action.UpdateSpec).RemoveField("id_bucket_2").AddField("event_time", iceberg.HourTransform{}, ""))
	wantDefaultSpec(t, again, "2[event_time_hour=hour(4)#1000]")
}
