package iceberg

import (
	"errors"
	"fmt"
	"testing"

	"github.com/floedb/floe/errkind"
)

// The partition statistics schema is the spec's table: names and ids in
// Java's order, the counts' required-ness by format version, dv_count
// (id 13, default 0) only from v3, the partition struct sorted by field
// id with every field optional; an unpartitioned table has none.
func TestPartitionStatsSchema(t *testing.T) {
	unified := &StructType{Fields: []NestedField{
		{ID: 1001, Name: "b_day", Type: DateType{}, Required: true},
		{ID: 1000, Name: "a", Type: StringType{}},
	}}
	for _, c := range []struct {
		version int
		want    string
	}{
		{2, "1 partition true|2 spec_id true|3 data_record_count true|4 data_file_count true|5 total_data_file_size_in_bytes true|" +
			"6 position_delete_record_count false|7 position_delete_file_count false|8 equality_delete_record_count false|" +
			"9 equality_delete_file_count false|10 total_record_count false|11 last_updated_at false|12 last_updated_snapshot_id false|"},
		{3, "1 partition true|2 spec_id true|3 data_record_count true|4 data_file_count true|5 total_data_file_size_in_bytes true|" +
			"6 position_delete_record_count true|7 position_delete_file_count true|8 equality_delete_record_count true|" +
			"9 equality_delete_file_count true|10 total_record_count false|11 last_updated_at false|12 last_updated_snapshot_id false|" +
			"13 dv_count true|"},
	} {
		s, err := PartitionStatsSchema(unified, c.version)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, f := range s.Fields {
			got += fmt.Sprintf("%d %s %v|", f.ID, f.Name, f.Required)
			if f.Name != "partition" && f.Name != "dv_count" && f.Type != (LongType{}) && f.Type != (IntType{}) {
				t.Errorf("v%d %s is %s", c.version, f.Name, f.Type)
			}
		}
		if got != c.want {
			t.Errorf("v%d:\n%s\nwant\n%s", c.version, got, c.want)
		}
		part := s.Fields[0].Type.(*StructType)
		if len(part.Fields) != 2 || part.Fields[0].ID != 1000 || part.Fields[1].ID != 1001 || part.Fields[0].Required || part.Fields[1].Required {
			t.Errorf("v%d partition %v", c.version, part)
		}
		if c.version == 3 && s.Fields[12].InitialDefault != int32(0) {
			t.Errorf("dv_count's initial default %v", s.Fields[12].InitialDefault)
		}
	}
	if unified.Fields[0].ID != 1001 || !unified.Fields[0].Required {
		t.Errorf("the unified type given was changed: %v", unified)
	}
	if _, err := PartitionStatsSchema(&StructType{}, 2); !errors.Is(err, errkind.InvalidArgument) {
		t.Errorf("unpartitioned: %v", err)
	}
}
