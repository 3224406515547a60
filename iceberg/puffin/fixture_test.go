package puffin

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// impala_iceberg_v3_deletion_vectors (testdata/fixtures/INDEX.md, table 1):
// Spark 4.0.2 + Iceberg 1.10.1 wrote one Puffin file with two DVs, at
// content_offset 4 and 46, 42 bytes each, over five one-row data files
// holding i = 1..5; after the deletes SELECT * gives 1, 3, 5, so each DV
// deletes position 0 of the file holding 2 or 4. Quirk 6: the footer still
// names the data files by their original hdfs:// paths.
const dvFixtureFile = "../../testdata/fixtures/impala_iceberg_v3_deletion_vectors/data/00000-9-08e88179-85b6-4635-8b34-94b49abc87d9-00001-deletes.puffin"

const dvFixtureDataDir = "hdfs://localhost:20500/test-warehouse/iceberg_v3_deletion_vectors/data/"

func readDVFixture(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(dvFixtureFile)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestFixtureDeletionVectors(t *testing.T) {
	file := readDVFixture(t)
	if len(file) != 824 {
		t.Fatalf("fixture is %d bytes, the manifest says 824", len(file))
	}
	for _, offset := range []int64{4, 46} {
		bm, err := ReadDeletionVector(bytes.NewReader(file), offset, 42)
		if err != nil {
			t.Fatalf("DV at %d: %v", offset, err)
		}
		if got := bm.ToArray(); !reflect.DeepEqual(got, []uint64{0}) {
			t.Errorf("DV at %d deletes %v, want [0]", offset, got)
		}
	}
}

func TestFixtureFooter(t *testing.T) {
	file := readDVFixture(t)
	f := footerOf(t, file)
	if got := f.Properties[PropertyCreatedBy]; !strings.HasPrefix(got, "Apache Iceberg 1.10.1") {
		t.Errorf("created-by %q", got)
	}
	if len(f.Blobs) != 2 {
		t.Fatalf("%d blobs", len(f.Blobs))
	}
	referenced := map[string]bool{}
	for i, b := range f.Blobs {
		if b.Type != BlobTypeDeletionVector || b.SnapshotID != -1 || b.SequenceNumber != -1 ||
			b.Offset != []int64{4, 46}[i] || b.Length != 42 || b.CompressionCodec != CodecNone {
			t.Errorf("blob %d: %+v", i, b)
		}
		if b.Properties[PropertyCardinality] != "1" {
			t.Errorf("blob %d cardinality %q", i, b.Properties[PropertyCardinality])
		}
		ref := b.Properties[PropertyReferencedDataFile]
		if !strings.HasPrefix(ref, dvFixtureDataDir) {
			t.Errorf("blob %d references %q, not under %s", i, ref, dvFixtureDataDir)
		}
		referenced[strings.TrimPrefix(ref, dvFixtureDataDir)] = true
		data, err := ReadBlob(bytes.NewReader(file), b)
		if err != nil {
			t.Fatal(err)
		}
		if bm, err := DecodeDeletionVector(data); err != nil || bm.GetCardinality() != 1 {
			t.Errorf("blob %d: %v", i, err)
		}
	}
	// The files whose rows 2 and 4 are deleted: the second and fourth of
	// the five data files in the fixture's data/ directory.
	want := map[string]bool{
		"00001-1-ec047627-1122-495a-9b07-87e0c47aebbb-0-00001.parquet": true,
		"00003-3-ec047627-1122-495a-9b07-87e0c47aebbb-0-00001.parquet": true,
	}
	if !reflect.DeepEqual(referenced, want) {
		t.Errorf("referenced data files %v", referenced)
	}
	for name := range want {
		if _, err := os.Stat(filepath.Join(filepath.Dir(dvFixtureFile), name)); err != nil {
			t.Errorf("referenced data file missing from the fixture: %v", err)
		}
	}
}

// Writing the fixture's DVs again, with its properties, gives back the file
// Java wrote, footer included.
func TestFixtureRewriteIsByteIdentical(t *testing.T) {
	file := readDVFixture(t)
	f := footerOf(t, file)
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for _, b := range f.Blobs {
		bm, err := ReadDeletionVector(bytes.NewReader(file), b.Offset, b.Length)
		if err != nil {
			t.Fatal(err)
		}
		meta, data, err := NewDeletionVectorBlob(b.Properties[PropertyReferencedDataFile], bm)
		if err != nil {
			t.Fatal(err)
		}
		written, err := w.AddBlob(meta, data)
		if err != nil {
			t.Fatal(err)
		}
		if written.Offset != b.Offset || written.Length != b.Length {
			t.Errorf("blob written at [%d,+%d), Java's at [%d,+%d)", written.Offset, written.Length, b.Offset, b.Length)
		}
	}
	if err := w.Finish(f.Properties); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), file) {
		t.Fatalf("rewritten file differs:\n got %q\nwant %q", buf.Bytes(), file)
	}
	if w.FooterSize() != f.Size || w.Size() != int64(len(file)) {
		t.Errorf("footer size %d file size %d, want %d and %d", w.FooterSize(), w.Size(), f.Size, len(file))
	}
}
