package manifest

import (
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
)

func TestReadErrorsAreCorruptUnlessUnsupported(t *testing.T) {
	garbage := []byte("not an avro file at all")
	if _, err := ReadManifestList(garbage, 2); errkind.Of(err) != errkind.Corrupt {
		t.Errorf("garbage manifest list: kind %v (%v)", errkind.Of(err), err)
	}
	if _, err := ReadManifest(garbage, ManifestFile{Path: "m.avro"}, iceberg.PartitionSpec{}, &iceberg.StructType{}, 2); errkind.Of(err) != errkind.Corrupt {
		t.Errorf("garbage manifest: kind %v (%v)", errkind.Of(err), err)
	}
	if _, err := ReadManifestList(garbage, 7); errkind.Of(err) != errkind.Unsupported {
		t.Errorf("format version 7: kind %v (%v)", errkind.Of(err), err)
	}
}
