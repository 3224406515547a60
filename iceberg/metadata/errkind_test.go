package metadata

import (
	"testing"

	"github.com/floedb/floe/errkind"
)

func TestParseErrorsAreCorruptUnlessUnsupported(t *testing.T) {
	for _, c := range []struct {
		data string
		kind errkind.Kind
	}{
		{`{"format-version": 2`, errkind.Corrupt},
		{`{"format-version": 2}`, errkind.Corrupt},
		{`[]`, errkind.Corrupt},
		{`{"format-version": 9}`, errkind.Unsupported},
	} {
		_, err := Parse([]byte(c.data))
		if got := errkind.Of(err); got != c.kind {
			t.Errorf("Parse(%s): kind %v (%v), want %v", c.data, got, err, c.kind)
		}
	}
}

func TestMissingSnapshotsAreNotFound(t *testing.T) {
	m := &Metadata{FormatVersion: 2}
	if _, err := m.SnapshotByRef("nope"); errkind.Of(err) != errkind.NotFound {
		t.Errorf("unknown ref: kind %v (%v)", errkind.Of(err), err)
	}
	if _, err := m.SnapshotAsOf(1); errkind.Of(err) != errkind.NotFound {
		t.Errorf("as of a time before any snapshot: kind %v (%v)", errkind.Of(err), err)
	}
}

func TestAnUnsupportedPartitionSpecStaysUnsupported(t *testing.T) {
	data := `{"format-version": 2, "table-uuid": "78e22bda-dd51-4c0d-bfa8-22d2f4fdf714", "location": "/t",
		"last-sequence-number": 0, "last-updated-ms": 1, "last-column-id": 1, "current-schema-id": 0,
		"schemas": [{"type": "struct", "schema-id": 0, "fields": [{"id": 1, "name": "a", "required": false, "type": "int"}]}],
		"default-spec-id": 0, "partition-specs": [{"spec-id": 0, "fields": [{"name": "p", "transform": "bucket[2]", "source-ids": [1, 1], "field-id": 1000}]}],
		"last-partition-id": 1000, "default-sort-order-id": 0, "sort-orders": [{"order-id": 0, "fields": []}]}`
	_, err := Parse([]byte(data))
	if got := errkind.Of(err); got != errkind.Unsupported {
		t.Errorf("multi-argument transform: kind %v (%v), want Unsupported", got, err)
	}
}
