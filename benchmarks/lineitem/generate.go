package lineitem

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"
)

// generatorVersion changes whenever the generated data or layout does, so
// tables made by an older generator are made again.
const generatorVersion = 2

// stampName is the file recording the parameters a table was made with.
const stampName = "generator.json"

// Params are what the generated table depends on.
type Params struct {
	Rows             int64  `json:"rows"`
	Files            int    `json:"files"`
	RowGroupsPerFile int    `json:"row_groups_per_file"`
	Seed             uint64 `json:"seed"`
}

// DefaultParams: 10 M rows in 8 files of 4 row groups.
var DefaultParams = Params{Rows: 10_000_000, Files: 8, RowGroupsPerFile: 4, Seed: 42}

func (p Params) validate() error {
	switch {
	case p.Rows < 1:
		return errors.New("rows must be positive")
	case p.Files < 1:
		return errors.New("files must be positive")
	case p.RowGroupsPerFile < 1:
		return errors.New("row groups per file must be positive")
	case int64(p.Files*p.RowGroupsPerFile) > p.Rows:
		return errors.New("more row groups than rows")
	}
	return nil
}

type stamp struct {
	Params
	Version  int    `json:"generator_version"`
	Location string `json:"location"`
	Metadata string `json:"metadata"`
}

// Table is a generated table on disk.
type Table struct {
	// Location is the table directory (absolute), MetadataPath its
	// metadata file; DataFiles are the Parquet files, in order.
	Location     string
	MetadataPath string
	DataFiles    []string
	Params       Params
	// Generated is false when an existing table with the same parameters
	// was reused.
	Generated bool
}

// Generate makes the table in dir unless dir already holds one made with
// the same parameters by this generator version. logf reports progress.
func Generate(dir string, p Params, logf func(format string, args ...any)) (*Table, error) {
	if err := p.validate(); err != nil {
		return nil, fmt.Errorf("lineitem: %w", err)
	}
	location, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	want := stamp{Params: p, Version: generatorVersion, Location: location}
	if t, ok := existing(location, want); ok {
		return t, nil
	}
	// Only what this generator writes is removed, never the directory.
	for _, sub := range []string{"data", "metadata", stampName} {
		if err := os.RemoveAll(filepath.Join(location, sub)); err != nil {
			return nil, err
		}
	}
	dataDir := filepath.Join(location, "data")
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return nil, err
	}
	logf("generating %d rows in %d files of %d row groups under %s", p.Rows, p.Files, p.RowGroupsPerFile, location)
	start := time.Now()
	files, err := writeDataFiles(dataDir, p)
	if err != nil {
		return nil, err
	}
	id := tableIDs(want)
	id.location, id.createdMs = location, time.Now().UnixMilli()
	metadataPath, err := writeTableMetadata(id, files)
	if err != nil {
		return nil, err
	}
	want.Metadata = metadataPath
	data, err := json.MarshalIndent(want, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(location, stampName), append(data, '\n'), 0o644); err != nil {
		return nil, err
	}
	logf("generated in %.1fs", time.Since(start).Seconds())
	t := &Table{Location: location, MetadataPath: metadataPath, Params: p, Generated: true}
	for _, f := range files {
		t.DataFiles = append(t.DataFiles, f.path)
	}
	return t, nil
}

// existing returns the table in location when its stamp matches want and
// its files are all there.
func existing(location string, want stamp) (*Table, bool) {
	data, err := os.ReadFile(filepath.Join(location, stampName))
	if err != nil {
		return nil, false
	}
	var have stamp
	if json.Unmarshal(data, &have) != nil || have.Params != want.Params || have.Version != want.Version || have.Location != want.Location {
		return nil, false
	}
	t := &Table{Location: location, MetadataPath: have.Metadata, Params: have.Params}
	if _, err := os.Stat(have.Metadata); err != nil {
		return nil, false
	}
	for i := 0; i < have.Files; i++ {
		path := dataFilePath(filepath.Join(location, "data"), i)
		if _, err := os.Stat(path); err != nil {
			return nil, false
		}
		t.DataFiles = append(t.DataFiles, path)
	}
	return t, true
}

func dataFilePath(dataDir string, i int) string {
	return filepath.Join(dataDir, fmt.Sprintf("%05d-lineitem.parquet", i))
}

// writeDataFiles writes the files in parallel, one per core at a time.
func writeDataFiles(dataDir string, p Params) ([]*dataFile, error) {
	files := make([]*dataFile, p.Files)
	errs := make([]error, p.Files)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), p.Files) {
		wg.Go(func() {
			for i := range next {
				first := int64(i) * p.Rows / int64(p.Files)
				end := int64(i+1) * p.Rows / int64(p.Files)
				g := newGenerator(p.Seed, i, first, p.Rows)
				files[i], errs[i] = writeDataFile(dataFilePath(dataDir, i), g, end-first, p.RowGroupsPerFile)
			}
		})
	}
	for i := range p.Files {
		next <- i
	}
	close(next)
	wg.Wait()
	return files, errors.Join(errs...)
}

// tableIDs derives the table uuid and snapshot id from the parameters, so
// the same parameters give the same metadata names.
func tableIDs(s stamp) tableFiles {
	data, _ := json.Marshal(s)
	sum := sha256.Sum256(data)
	u := sum[:16]
	u[6] = u[6]&0x0f | 0x40 // version 4 layout
	u[8] = u[8]&0x3f | 0x80
	var b bytes.Buffer
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b.WriteByte('-')
		}
		fmt.Fprintf(&b, "%02x", c)
	}
	snapshot := int64(binary.BigEndian.Uint64(sum[16:24]) >> 1)
	if snapshot == 0 {
		snapshot = 1
	}
	return tableFiles{uuid: b.String(), snapshotID: snapshot}
}
