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
