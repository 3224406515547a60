package metadata

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/floedb/floe/errkind"
)

func sampleStatistics(snapshotID int64, path string) StatisticsFile {
	return StatisticsFile{
		SnapshotID: snapshotID, StatisticsPath: path, FileSizeInBytes: 124, FileFooterSizeInBytes: 27,
		BlobMetadata: []BlobMetadata{{
			Type: "apache-datasketches-theta-v1", SnapshotID: snapshotID, SequenceNumber: 2,
			Fields: []int{1}, Properties: map[string]string{"ndv": "42"},
		}},
	}
}

// The JSON forms are those of the REST spec and Java's MetadataUpdateParser.
func TestStatisticsUpdateJSONForms(t *testing.T) {
	cases := []struct {
		u    Update
		want string
	}{
		{SetStatistics{Statistics: sampleStatistics(7, "s3://b/t/metadata/7-a.stats")},
			`{"action":"set-statistics","snapshot-id":7,"statistics":{"snapshot-id":7,"statistics-path":"s3://b/t/metadata/7-a.stats","file-size-in-bytes":124,"file-footer-size-in-bytes":27,"blob-metadata":[{"type":"apache-datasketches-theta-v1","snapshot-id":7,"sequence-number":2,"fields":[1],"properties":{"ndv":"42"}}]}}`},
		{RemoveStatistics{SnapshotID: 7}, `{"action":"remove-statistics","snapshot-id":7}`},
		{SetPartitionStatistics{PartitionStatistics: PartitionStatisticsFile{SnapshotID: 7, StatisticsPath: "p.parquet", FileSizeInBytes: 43}},
			`{"action":"set-partition-statistics","partition-statistics":{"snapshot-id":7,"statistics-path":"p.parquet","file-size-in-bytes":43}}`},
		{RemovePartitionStatistics{SnapshotID: 7}, `{"action":"remove-partition-statistics","snapshot-id":7}`},
	}
	for _, c := range cases {
		raw, err := json.Marshal(c.u)
		if err != nil {
			t.Fatal(err)
		}
		if string(raw) != c.want {
			t.Errorf("%T: %s\nwant %s", c.u, raw, c.want)
		}
		back, err := ParseUpdate(raw)
		if err != nil || !reflect.DeepEqual(back, c.u) {
			t.Errorf("%s read back as %#v (%v)", raw, back, err)
		}
	}
	// The spec's current form leaves the deprecated top-level snapshot-id
	// out; key-metadata is kept.
	raw := `{"action":"set-statistics","statistics":{"snapshot-id":3,"statistics-path":"x.stats","file-size-in-bytes":1,"file-footer-size-in-bytes":1,"key-metadata":"AAE=","blob-metadata":[]}}`
	u, err := ParseUpdate([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if s := u.(SetStatistics).Statistics; s.SnapshotID != 3 || s.KeyMetadata != "AAE=" || s.BlobMetadata != nil {
		t.Errorf("read %+v", s)
	}
	for _, bad := range []string{
		`{"action":"set-statistics"}`,
		`{"action":"set-statistics","statistics":{"snapshot-id":3,"file-size-in-bytes":1,"file-footer-size-in-bytes":1,"blob-metadata":[]}}`,
		`{"action":"set-statistics","statistics":{"snapshot-id":3,"statistics-path":"x","file-size-in-bytes":1,"file-footer-size-in-bytes":1,"blob-metadata":[{"type":"t"}]}}`,
		`{"action":"remove-statistics"}`,
		`{"action":"set-partition-statistics","partition-statistics":{"snapshot-id":1}}`,
	} {
		if _, err := ParseUpdate([]byte(bad)); !errors.Is(err, errkind.InvalidArgument) {
			t.Errorf("%s: %v, want an invalid argument", bad, err)
		}
	}
}

// Setting replaces the snapshot's file in place, removing an absent one
// changes nothing, and the result writes and reads back.
func TestStatisticsUpdatesApply(t *testing.T) {
	base := mustParse(t, rollbackTable())
	c := Edit(base)
	first, second, other := sampleStatistics(1, "a.stats"), sampleStatistics(1, "b.stats"), sampleStatistics(2, "c.stats")
	if err := c.Apply(SetStatistics{Statistics: first}, SetStatistics{Statistics: other}, SetStatistics{Statistics: second}); err != nil {
		t.Fatal(err)
	}
	m := c.Metadata()
	if len(m.Statistics) != 2 || m.Statistics[0].StatisticsPath != "b.stats" || m.Statistics[1].StatisticsPath != "c.stats" {
		t.Fatalf("statistics %+v", m.Statistics)
	}
	if err := c.Apply(SetPartitionStatistics{PartitionStatistics: PartitionStatisticsFile{SnapshotID: 2, StatisticsPath: "p", FileSizeInBytes: 9}}); err != nil {
		t.Fatal(err)
	}
	back, err := Parse(mustMarshal(t, m))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Statistics, m.Statistics) || !reflect.DeepEqual(back.PartitionStatistics, m.PartitionStatistics) {
		t.Fatalf("written and read back: %+v %+v", back.Statistics, back.PartitionStatistics)
	}
	if err := c.Apply(RemoveStatistics{SnapshotID: 1}, RemoveStatistics{SnapshotID: 99}, RemovePartitionStatistics{SnapshotID: 2}); err != nil {
		t.Fatal(err)
	}
	if len(m.Statistics) != 1 || m.Statistics[0].SnapshotID != 2 || m.PartitionStatistics != nil {
		t.Fatalf("after removal: %+v %+v", m.Statistics, m.PartitionStatistics)
	}
	if base.Statistics != nil {
		t.Fatal("the base changed")
	}
	if err := c.Apply(SetStatistics{Statistics: StatisticsFile{SnapshotID: 1}}); !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("a file without a path: %v", err)
	}
	// a catalog replaying the updates gets the same metadata
	replayed, err := Apply(base, c.Requirements(), c.Updates())
	if err != nil || !reflect.DeepEqual(replayed.Statistics, m.Statistics) {
		t.Fatalf("replay: %v %+v", err, replayed)
	}
}
