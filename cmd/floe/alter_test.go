package main

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg"
)

// Several actions of every kind in one alter are one new metadata
// version, and the table Hive wrote reads as before under the new
// schema: the renamed column keeps its data, the added one is null.
func TestAlterSeveralActionsAreOneVersion(t *testing.T) {
	dir := copyFixture(t, "impala_iceberg_v2_partitioned_position_deletes")
	before := metadataVersions(t, dir)
	res := runChange(t, "alter", dir,
		"add-column", "zip", "string", "--after", "user", "--doc", "postal code",
		"rename-column", "action", "verb",
		"add-partition-field", "event_time:day",
		"add-partition-field", "id:bucket[16]", "--name", "id_b",
		"set-sort-order", "id:desc", "user:nulls-last", "event_time:hour:asc:nulls-first",
		"set-property", "owner=floe", "unset-property", "engine.hive.enabled")
	after := metadataVersions(t, dir)
	if len(after) != len(before)+1 {
		t.Fatalf("alter added %d metadata files, want 1: %v", len(after)-len(before), after)
	}
	wantActions := []string{"add-column", "rename-column", "add-partition-field", "add-partition-field", "set-sort-order", "set-property", "unset-property"}
	if !res.Committed || !reflect.DeepEqual(res.Actions, wantActions) || res.Command != "alter" {
		t.Errorf("result %+v", res)
	}
	if res.SchemaID != 1 || res.SpecID != 1 || res.SortOrderID != 1 || res.FormatVersion != 2 {
		t.Errorf("result ids: schema %d spec %d order %d version %d, want 1 1 1 2", res.SchemaID, res.SpecID, res.SortOrderID, res.FormatVersion)
	}
	if len(res.SnapshotIDs) != 0 || len(res.Refs) != 0 || res.SnapshotID == nil || *res.SnapshotID != 8885697082976537578 {
		t.Errorf("alter wrote snapshots or moved refs: %+v", res)
	}
	tbl, md := openMetadata(t, dir)
	if tbl.MetadataLocation != res.MetadataLocation || !slices.Contains(after, filepath.Base(res.MetadataLocation)) {
		t.Errorf("metadata_location %s, table at %s", res.MetadataLocation, tbl.MetadataLocation)
	}
	var names []string
	for _, f := range md.CurrentSchema().Fields {
		names = append(names, f.Name)
	}
	if want := []string{"id", "user", "zip", "verb", "event_time"}; !reflect.DeepEqual(names, want) {
		t.Errorf("columns %v, want %v", names, want)
	}
	if zip, _ := md.CurrentSchema().FindFieldByName("zip"); zip.Doc != "postal code" || zip.Required {
		t.Errorf("zip: %+v", zip)
	}
	spec := md.DefaultSpec()
	var fields []string
	for _, f := range spec.Fields {
		fields = append(fields, f.Name+"="+f.Transform.String())
	}
	if want := []string{"action=identity", "event_time_day=day", "id_b=bucket[16]"}; !reflect.DeepEqual(fields, want) {
		t.Errorf("spec fields %v, want %v", fields, want)
	}
	order := md.DefaultSortOrder()
	var sorts []string
	for _, f := range order.Fields {
		sorts = append(sorts, f.Transform.String()+" "+f.Direction+" "+f.NullOrder)
	}
	if want := []string{"identity desc nulls-last", "identity asc nulls-last", "hour asc nulls-first"}; !reflect.DeepEqual(sorts, want) {
		t.Errorf("sort order %v, want %v", sorts, want)
	}
	if md.Properties["owner"] != "floe" || md.Properties["engine.hive.enabled"] != "" {
		t.Errorf("properties %v", md.Properties)
	}
	out := mustRun(t, "scan", dir, "--columns", "id,verb,zip", "--format", "csv", "--filter", "verb = 'click'")
	if !strings.HasPrefix(out, "id,verb,zip\n") || strings.Count(out, ",click,\n") != strings.Count(out, "\n")-1 || strings.Count(out, "\n") < 2 {
		t.Errorf("scan after alter:\n%s", out)
	}
	if n := len(scanRows(t, dir)); n != 10 {
		t.Errorf("%d rows after alter, want the 10 Hive left", n)
	}
	// The same property again changes nothing and writes nothing.
	again := runChange(t, "alter", dir, "set-property", "owner=floe")
	if again.Committed || len(metadataVersions(t, dir)) != len(after) {
		t.Errorf("setting a property to its value committed: %+v", again)
	}
}

// Each refused alter names what is wrong and commits nothing, including
// a valid action given with a refused one.
func TestAlterRefusalsCommitNothing(t *testing.T) {
	dir := copyFixture(t, "impala_iceberg_v2_partitioned_position_deletes")
	for _, c := range []struct {
		want []string
		args []string
	}{
		{[]string{`"action"`, "partition"}, []string{"set-property", "owner=x", "drop-column", "action"}},
		{[]string{`"id"`, "int", "string"}, []string{"update-column", "id", "string"}},
		{[]string{`"nope"`}, []string{"add-column", "x", "long", "add-partition-field", "nope:day"}},
		{[]string{`"bogus"`, "bucket[N]"}, []string{"add-partition-field", "id:bogus"}},
		{[]string{"downgrade", "2", "1"}, []string{"upgrade", "--format-version", "1"}},
		{[]string{"--format-version", `"two"`}, []string{"upgrade", "--format-version", "two"}},
		{[]string{"upgrade --format-version N"}, []string{"upgrade"}},
		{[]string{`"format-version"`, "reserved"}, []string{"set-property", "format-version=3"}},
		{[]string{"KEY=VALUE", `"owner"`}, []string{"set-property", "owner"}},
		{[]string{`"owner"`, "both set and removed"}, []string{"set-property", "owner=x", "unset-property", "owner"}},
		{[]string{`"frobnicate"`, "add-column"}, []string{"frobnicate"}},
		{[]string{"add-column NAME TYPE"}, []string{"add-column", "x"}},
		{[]string{"--frist", "--first"}, []string{"add-column", "x", "long", "--frist"}},
		{[]string{`"blob"`}, []string{"add-column", "x", "blob"}},
		{[]string{`"x"`, "format version 3"}, []string{"add-column", "x", "int", "--default", "5"}},
		{[]string{"one of --first, --before and --after"}, []string{"move-column", "id", "--first", "--after", "user"}},
		{[]string{"move-column NAME"}, []string{"move-column", "id"}},
		{[]string{`"desc-ish"`}, []string{"set-sort-order", "id:desc-ish"}},
		{[]string{`"nope"`}, []string{"set-sort-order", "nope"}},
		{[]string{`"nope"`}, []string{"drop-partition-field", "nope"}},
		{[]string{"unexpected argument", `"extra"`}, []string{"drop-column", "zip", "extra"}},
		{[]string{"usage: floe alter"}, nil},
	} {
		refuse(t, dir, c.want, append([]string{"alter", dir}, c.args...)...)
	}
	if _, md := openMetadata(t, dir); md.Properties["owner"] != "" || len(md.Schemas) != 1 {
		t.Errorf("a refused alter changed the table: %v", md.Properties)
	}
}

// On a v1 table (Spark's, legacy metadata) a dropped partition field
// stays as void, as the spec says, and the upgrade in the same call
// makes it v2; the data reads as before.
func TestAlterV1DropPartitionFieldAndUpgrade(t *testing.T) {
	dir := copyFixture(t, "impala_iceberg_partitioned")
	res := runChange(t, "alter", dir, "drop-partition-field", "event_time_hour", "upgrade", "--format-version", "2")
	if res.FormatVersion != 2 || res.SpecID != 1 || !reflect.DeepEqual(res.Actions, []string{"drop-partition-field", "upgrade"}) {
		t.Errorf("result %+v", res)
	}
	_, md := openMetadata(t, dir)
	spec := md.DefaultSpec()
	if len(spec.Fields) != 2 || spec.Fields[0].Name != "event_time_hour" {
		t.Fatalf("spec after the drop: %+v", spec.Fields)
	}
	if _, void := spec.Fields[0].Transform.(iceberg.VoidTransform); !void {
		t.Errorf("the dropped v1 field is %s, want void", spec.Fields[0].Transform)
	}
	if n := len(scanRows(t, dir, "--columns", "id")); n != 20 {
		t.Errorf("%d rows after the change, want 20", n)
	}
	// Downgrading is refused.
	refuse(t, dir, []string{"downgrade"}, "alter", dir, "upgrade", "--format-version", "1")
}

// parseAlter: common flags anywhere, flags of an action after it, "--"
// makes later arguments plain words, verbs start actions only once the
// one before has its arguments.
func TestParseAlter(t *testing.T) {
	common, name, steps, err := parseAlter([]string{
		"--catalog", "sqlite:x.db", "ns.t", "add-column", "a.b", "long", "--first", "--quiet",
		"rename-column", "drop-column", "x", "set-sort-order", "a:desc", "b",
		"update-column", "c", "--doc=d", "--", "drop-column", "-weird",
	})
	if err != nil {
		t.Fatal(err)
	}
	if name != "ns.t" || !reflect.DeepEqual(common, []string{"--catalog", "sqlite:x.db", "--quiet"}) {
		t.Errorf("name %q, common %v", name, common)
	}
	var got []string
	for _, s := range steps {
		got = append(got, s.verb+"("+strings.Join(s.args, " ")+")")
	}
	want := []string{"add-column(a.b long)", "rename-column(drop-column x)", "set-sort-order(a:desc b)", "update-column(c)", "drop-column(-weird)"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("steps %v, want %v", got, want)
	}
	if !hasFlag(steps[0], "first") {
		t.Errorf("add-column lost --first")
	}
	if d, _ := steps[3].flag("doc"); d != "d" {
		t.Errorf("update-column --doc=%q", d)
	}
	for _, bad := range [][]string{
		{"t", "--first"}, {"t", "upgrade", "--format-version"}, {"t", "upgrade", "--format-version=2=3", "--x"},
		{"t", "add-column", "x", "long", "--first=yes"}, {"t", "rename-column", "a"},
	} {
		if _, _, _, err := parseAlter(bad); err == nil {
			t.Errorf("parseAlter(%q) accepted it", bad)
		}
	}
}

// On a v3 table (Spark's): a required column with a default reads as
// the default in the rows written before it, nested types are given as
// JSON without ids, a type is widened and a column added in the same
// call is moved; a later write-default is decoded by the column's type.
func TestAlterV3DefaultsAndNestedTypes(t *testing.T) {
	dir := copyFixture(t, "impala_iceberg_v3_row_lineage")
	res := runChange(t, "alter", dir,
		"add-column", "s", "string", "--default", `"x"`, "--required",
		"add-column", "pt", `{"type":"struct","fields":[{"name":"x","type":"double","required":true},{"name":"tags","type":{"type":"list","element":"string","element-required":false}}]}`,
		"update-column", "i", "long", "--doc", "the i",
		"move-column", "s", "--first")
	if res.SchemaID != 1 {
		t.Errorf("four schema actions made schema %d, want one new schema (1)", res.SchemaID)
	}
	_, md := openMetadata(t, dir)
	schema := md.CurrentSchema()
	if got := schema.Fields[0]; got.Name != "s" || !got.Required || got.InitialDefault != "x" {
		t.Errorf("first column %+v", got)
	}
	if i, _ := schema.FindFieldByName("i"); i.Type.String() != "long" || i.Doc != "the i" {
		t.Errorf("i: %+v", i)
	}
	if f, ok := schema.FindFieldByName("pt.tags.element"); !ok || f.Type.String() != "string" || f.ID <= 1 {
		t.Errorf("pt.tags.element: %+v %v", f, ok)
	}
	rows := scanRows(t, dir, "--columns", "s,i")
	if len(rows) != 3 {
		t.Fatalf("%d rows", len(rows))
	}
	for _, r := range rows {
		if r["s"] != "x" {
			t.Errorf("row %v: s is not its default", r)
		}
	}
	runChange(t, "alter", dir, "update-column", "s", "--default", `"y"`)
	if _, md = openMetadata(t, dir); md.CurrentSchema().Fields[0].WriteDefault != "y" || md.CurrentSchema().Fields[0].InitialDefault != "x" {
		t.Errorf("after update-column --default: %+v", md.CurrentSchema().Fields[0])
	}
	refuse(t, dir, []string{`"nope"`}, "alter", dir, "update-column", "nope", "--default", "1")
	refuse(t, dir, []string{"give a TYPE, --doc or --default"}, "alter", dir, "update-column", "s")
}

// Each new command's help shows its usage and the JSON it prints; the
// write commands' show --branch, --wap-id and --stage.
func TestChangeAndWriteCommandHelp(t *testing.T) {
	for name := range changeCommands {
		out := mustRun(t, "help", name)
		if !strings.Contains(out, "usage: floe "+name) || !strings.Contains(out, `"metadata_location"`) {
			t.Errorf("floe help %s:\n%s", name, out)
		}
	}
	for name := range writeCommands {
		out := mustRun(t, name, "--help")
		if !strings.Contains(out, "[--branch NAME] [--wap-id ID] [--stage]") || !strings.Contains(out, "write.wap.enabled") {
			t.Errorf("floe %s --help:\n%s", name, out)
		}
	}
	for _, verb := range alterVerbNames() {
		if out := mustRun(t, "alter", "--help"); !strings.Contains(out, verb+" ") {
			t.Errorf("floe alter --help does not show %s", verb)
		}
	}
}

// make-required is checked against the data (a column Hive's files lack
// may hold nulls; id holds none) and identifier fields must be required:
// required and key in one call is one schema.
func TestAlterMakeRequiredAndIdentifierFields(t *testing.T) {
	dir := copyFixture(t, "impala_iceberg_v2_partitioned_position_deletes")
	refuse(t, dir, []string{`"id"`, "required"}, "alter", dir, "set-identifier-fields", "id")
	runChange(t, "alter", dir, "add-column", "z", "long")
	refuse(t, dir, []string{`"z"`, "nulls"}, "alter", dir, "make-required", "z")
	res := runChange(t, "alter", dir, "make-required", "id", "make-required", "user", "set-identifier-fields", "id", "user")
	if res.SchemaID != 2 {
		t.Errorf("schema %d, want 2 (one new schema for the three actions)", res.SchemaID)
	}
	_, md := openMetadata(t, dir)
	if s := md.CurrentSchema(); !reflect.DeepEqual(s.IdentifierFieldIDs, []int{1, 2}) || !s.Fields[0].Required {
		t.Errorf("schema after: ids %v, id required %v", s.IdentifierFieldIDs, s.Fields[0].Required)
	}
	// No column: no row key.
	runChange(t, "alter", dir, "set-identifier-fields")
	if _, md = openMetadata(t, dir); len(md.CurrentSchema().IdentifierFieldIDs) != 0 {
		t.Errorf("identifier fields left: %v", md.CurrentSchema().IdentifierFieldIDs)
	}
}
