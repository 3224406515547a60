package puffin

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
)

func FuzzReadFooter(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(goldenDir, "puffin", "*.bin"))
	files = append(files, dvFixtureFile)
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	var lz4Footer bytes.Buffer
	w := NewWriter(&lz4Footer)
	w.CompressFooter(true)
	w.AddBlob(BlobMetadata{Type: "t", CompressionCodec: CodecLZ4}, []byte("lz4 blob lz4 blob lz4 blob"))
	w.Finish(map[string]string{PropertyCreatedBy: "fuzz"})
	f.Add(lz4Footer.Bytes())
	f.Fuzz(func(t *testing.T, file []byte) {
		r := bytes.NewReader(file)
		footer, err := ReadFooter(r, int64(len(file)))
		if err != nil {
			return
		}
		for _, b := range footer.Blobs {
			if b.Offset+b.Length > int64(len(file))-footer.Size {
				t.Fatalf("blob %+v overlaps the footer", b)
			}
			ReadBlob(r, b)
		}
	})
}

func FuzzDecodeDeletionVector(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(goldenDir, "deletion-vectors", "*.bin"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[8 : len(b)-4]) // the bare vector, framed in the fuzz body
	}
	fixture, err := os.ReadFile(dvFixtureFile)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(fixture[4:46])
	gap, _ := EncodeDeletionVector(roaring64.BitmapOf(3, 2<<32|9))
	f.Add(gap)
	f.Fuzz(func(t *testing.T, b []byte) {
		// As a whole blob, and as a vector given valid framing so that
		// mutations reach the bitmap checks past the CRC.
		checkDecodeRoundTrip(t, b)
		checkDecodeRoundTrip(t, frameDV(b))
	})
}

func checkDecodeRoundTrip(t *testing.T, blob []byte) {
	bm, err := DecodeDeletionVector(blob)
	if err != nil {
		return
	}
	// Whatever decodes must survive a round trip through the encoder,
	// unless its largest key would make Java's layout (an empty
	// bitmap for every lower key) too large to be worth a fuzz run.
	if !bm.IsEmpty() && bm.Maximum()>>32 > 1<<16 {
		return
	}
	again, err := EncodeDeletionVector(bm.Clone())
	if err != nil {
		t.Fatalf("re-encoding failed: %v", err)
	}
	back, err := DecodeDeletionVector(again)
	if err != nil || !back.Equals(bm) {
		t.Fatalf("round trip: %v", err)
	}
}
