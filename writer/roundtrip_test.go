package writer

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/reader/parquet"
)

// writeRows writes rows of schema in batches of batchRows and returns the
// files' entries.
func writeRows(t testing.TB, dir string, schema *iceberg.Schema, spec *iceberg.PartitionSpec, opts Options, rows [][]any, batchRows int) []manifest.DataFile {
	t.Helper()
	files, err := writeRowsIO(t, fileio.Local{}, dir, schema, spec, opts, rows, batchRows)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// writeRowsErr is writeRows returning the writer's error; on error it
// aborts the writer and checks that nothing is left in dir.
func writeRowsErr(t testing.TB, dir string, schema *iceberg.Schema, spec *iceberg.PartitionSpec, opts Options, rows [][]any, batchRows int) ([]manifest.DataFile, error) {
	return writeRowsIO(t, fileio.Local{}, dir, schema, spec, opts, rows, batchRows)
}

// writeRowsIO is writeRowsErr through the given FileIO.
func writeRowsIO(t testing.TB, files fileio.FileIO, dir string, schema *iceberg.Schema, spec *iceberg.PartitionSpec, opts Options, rows [][]any, batchRows int) ([]manifest.DataFile, error) {
	t.Helper()
	w, err := New(context.Background(), files, filepath.Join(dir, "data"), schema, spec, opts)
	if err != nil {
		return nil, err
	}
	written, err := func() ([]manifest.DataFile, error) {
		for start := 0; start < len(rows); start += batchRows {
			rec := buildRecord(t, schema, rows[start:min(start+batchRows, len(rows))])
			err := w.Write(rec)
			rec.Release()
			if err != nil {
				return nil, err
			}
		}
		return w.Close()
	}()
	if err != nil {
		if aerr := w.Abort(); aerr != nil {
			t.Fatalf("abort: %v", aerr)
		}
		if left := filesUnder(t, dir); len(left) > 0 {
			t.Fatalf("abort left %v", left)
		}
	}
	return written, err
}

// noSyncIO is the local file system without fsync: for tests that write
// hundreds of small files and check their content, not their durability.
// Files still appear only when finished.
type noSyncIO struct{ fileio.Local }

type noSyncWriter struct {
	f     *os.File
	final string
	done  bool
}

func (noSyncIO) Create(_ context.Context, path string) (fileio.Writer, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return nil, err
	}
	return &noSyncWriter{f: f, final: path}, nil
}

func (w *noSyncWriter) Write(p []byte) (int, error) { return w.f.Write(p) }

func (w *noSyncWriter) Close() error {
	w.done = true
	if err := w.f.Close(); err != nil {
		os.Remove(w.f.Name())
		return err
	}
	return os.Rename(w.f.Name(), w.final)
}

func (w *noSyncWriter) Abort() error {
	if !w.done {
		w.done = true
		w.f.Close()
		os.Remove(w.f.Name())
	}
	return nil
}

// filesUnder lists the regular files under dir.
func filesUnder(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func TestRoundTripAllTypes(t *testing.T) {
	schema := allTypesSchema()
	rows := genRows(rand.New(rand.NewPCG(1, 2)), schema, 3000)
	for _, codec := range []string{"zstd", "snappy", "uncompressed", "fallback"} {
		t.Run(codec, func(t *testing.T) {
			dir := t.TempDir()
			opts := DefaultOptions()
			opts.Codec = codec
			opts.RowGroupSize = 64 << 10 // several row groups
			switch codec {
			case "snappy":
				opts.PageRowLimit = 97 // many pages, cut between nested rows
				opts.NoDictionary = true
			case "fallback":
				// Dictionaries outgrow their limit part way through
				// chunks, and pages are cut by size.
				opts.Codec = "zstd"
				opts.DictionarySize = 300
				opts.PageSize = 1500
				opts.RowGroupSize = 1 << 20
			}
			rows := rows
			if codec == "fallback" {
				// A first batch of few distinct values gives every column
				// that can have one a dictionary.
				rows = append([][]any(nil), rows...)
				for i := range 700 {
					rows[i] = rows[i%5]
				}
			}
			files := writeRows(t, dir, schema, nil, opts, rows, 700)
			if len(files) != 1 {
				t.Fatalf("%d files, want 1", len(files))
			}
			df := files[0]
			if df.RecordCount != int64(len(rows)) {
				t.Fatalf("record count %d, want %d", df.RecordCount, len(rows))
			}
			info, err := os.Stat(df.FilePath)
			if err != nil {
				t.Fatal(err)
			}
			if info.Size() != df.FileSizeInBytes {
				t.Errorf("file size %d, entry says %d", info.Size(), df.FileSizeInBytes)
			}
			compareRows(t, "floe reader", schema, rows, readFloe(t, df.FilePath, schema))
			compareRows(t, "pqarrow", schema, rows, readPqarrow(t, df.FilePath, schema))
			if codec == "fallback" {
				checkFellBack(t, df.FilePath)
			}
		})
	}
}

// checkFellBack asserts that some chunk of the file holds both
// dictionary-encoded and PLAIN data pages, so the fallback was exercised.
func checkFellBack(t *testing.T, path string) {
	t.Helper()
	pf, closeFile := openParquet(t, path)
	defer closeFile()
	for _, rg := range pf.RowGroups {
		for _, c := range rg.Columns {
			var dict, plain bool
			for _, s := range c.EncodingStats {
				dict = dict || s.Encoding == parquet.EncRLEDictionary
				plain = plain || (s.Encoding == parquet.EncPlain && s.PageType == 0)
			}
			if dict && plain {
				return
			}
		}
	}
	t.Errorf("%s: no chunk fell back from a dictionary to PLAIN", path)
}
