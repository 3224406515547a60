package action_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/metadata"
)

// orderString writes a sort order as transform(source) direction
// null-order, comma separated.
func orderString(o *iceberg.SortOrder) string {
	parts := make([]string, len(o.Fields))
	for i, f := range o.Fields {
		parts[i] = fmt.Sprintf("%s(%d) %s %s", f.Transform, f.SourceID, f.Direction, f.NullOrder)
	}
	return fmt.Sprintf("%d[%s]", o.OrderID, strings.Join(parts, ", "))
}

func wantDefaultOrder(t *testing.T, md *metadata.Metadata, want string) {
	t.Helper()
	if got := orderString(md.DefaultSortOrder()); got != want {
		t.Fatalf("default sort order %s, want %s", got, want)
	}
}

// Spark's v2 table is unsorted (order 0 only): a new order is order 1,
// nulls first ascending and last descending unless asked otherwise.
func TestReplaceSortOrderOnSparkV2(t *testing.T) {
	md := sparkV2(t)
	byBirth := new(action.ReplaceSortOrder).
		Asc("bir", nil, "").
		Desc("id", iceberg.BucketTransform{N: 4}, "").
		Asc("name", iceberg.TruncateTransform{Width: 1}, action.NullsLast)
	s1, updates := evolve(t, md, byBirth)
	if len(updates) != 2 || !reflect.DeepEqual(updates[1], metadata.SetDefaultSortOrder{SortOrderID: -1}) {
		t.Fatalf("updates %v, want add-sort-order and set-default-sort-order -1", updates)
	}
	wantDefaultOrder(t, s1, "1[identity(3) asc nulls-first, bucket[4](1) desc nulls-last, truncate[1](2) asc nulls-last]")

	// The same order again changes nothing.
	if updates, err := byBirth.Build(s1); err != nil || len(updates) != 0 {
		t.Fatalf("the same order again: %v, %v; want nothing", updates, err)
	}
	s2, _ := evolve(t, s1, new(action.ReplaceSortOrder).Desc("bir", iceberg.YearTransform{}, action.NullsFirst))
	wantDefaultOrder(t, s2, "2[year(3) desc nulls-first]")
	// Back to order 1: made the default, not added again.
	s3, updates := evolve(t, s2, byBirth)
	if !reflect.DeepEqual(updates, []metadata.Update{metadata.SetDefaultSortOrder{SortOrderID: 1}}) {
		t.Fatalf("updates %v, want set-default-sort-order 1", updates)
	}
	wantDefaultOrder(t, s3, orderString(s1.DefaultSortOrder()))
	// No fields: the unsorted order 0.
	s4, updates := evolve(t, s3, new(action.ReplaceSortOrder))
	if !reflect.DeepEqual(updates, []metadata.Update{metadata.SetDefaultSortOrder{SortOrderID: 0}}) {
		t.Fatalf("updates %v, want set-default-sort-order 0", updates)
	}
	wantDefaultOrder(t, s4, "0[]")
	if len(s4.SortOrders) != 3 {
		t.Fatalf("%d sort orders, want 3", len(s4.SortOrders))
	}
}

// Spark's v1 table and a nested column of Hive's migrated v1 table.
func TestReplaceSortOrderOnV1Tables(t *testing.T) {
	s1, _ := evolve(t, sparkV1(t), new(action.ReplaceSortOrder).Asc("event_time", iceberg.HourTransform{}, "").Desc("id", nil, ""))
	wantDefaultOrder(t, s1, "1[hour(4) asc nulls-first, identity(1) desc nulls-last]")
	hive := readFixtureMetadata(t, "impala_iceberg_migrated_complex_test", "v2.metadata.json")
	s2, _ := evolve(t, hive, new(action.ReplaceSortOrder).CaseSensitive(false).Asc("STRUCT_2_COL.struct_3_col.Float_Col", nil, ""))
	wantDefaultOrder(t, s2, "1[identity(14) asc nulls-first]")
}

// Another writer added an order meanwhile: the retried build numbers its
// order after theirs.
func TestReplaceSortOrderRebuildsOnNewerMetadata(t *testing.T) {
	md := sparkV2(t)
	mine := new(action.ReplaceSortOrder).Asc("id", nil, "")
	theirs, _ := evolve(t, md, new(action.ReplaceSortOrder).Desc("bir", nil, ""))
	retried, _ := evolve(t, theirs, mine)
	wantDefaultOrder(t, retried, "2[identity(1) asc nulls-first]")
}

func TestReplaceSortOrderRefusals(t *testing.T) {
	md := sparkV2(t)
	hive := readFixtureMetadata(t, "impala_iceberg_migrated_complex_test", "v2.metadata.json")
	for _, c := range []struct {
		what  string
		md    *metadata.Metadata
		r     *action.ReplaceSortOrder
		names []string
	}{
		{"unknown column", md, new(action.ReplaceSortOrder).Asc("birr", nil, ""), []string{`"birr"`, `did you mean "bir"`}},
		{"bad null order", md, new(action.ReplaceSortOrder).Asc("id", nil, "nulls-middle").Asc("bir", nil, ""), []string{`"id"`, "nulls-middle"}},
		{"transform not for the type", md, new(action.ReplaceSortOrder).Desc("name", iceberg.DayTransform{}, ""), []string{`"name"`, "day"}},
		{"unknown transform", md, new(action.ReplaceSortOrder).Asc("id", iceberg.UnknownTransform{Name: "zorder"}, ""), []string{"zorder"}},
		{"a struct", hive, new(action.ReplaceSortOrder).Asc("struct_1_col", nil, ""), []string{`"struct_1_col"`, "primitive"}},
		{"void of a struct", hive, new(action.ReplaceSortOrder).Asc("struct_1_col", iceberg.VoidTransform{}, ""), []string{`"struct_1_col"`, "primitive"}},
		{"inside a map", hive, new(action.ReplaceSortOrder).Asc("int_bigint_map_col.value", nil, ""), []string{"int_bigint_map_col.value", "map"}},
		{"case differs", md, new(action.ReplaceSortOrder).Asc("ID", nil, ""), []string{`"ID"`, `did you mean "id"`}},
	} {
		t.Run(c.what, func(t *testing.T) { refusedAction(t, c.md, c.r, c.names...) })
	}
}
