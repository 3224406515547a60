package lineitem

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// deletesVersion changes whenever the derived delete tables do, so older
// ones are made again.
const deletesVersion = 1

// DeleteKind names one of the derived tables.
type DeleteKind string

const (
	// PositionDeletes: v2, one position delete file per data file.
	PositionDeletes DeleteKind = "pos"
	// DeletionVectors: v3, one deletion vector per data file, all in one
	// Puffin file; the same positions as PositionDeletes.
	DeletionVectors DeleteKind = "dv"
	// EqualityDeletes: v2, one equality delete file of (l_orderkey,
	// l_partkey) keys, a tenth of the row count of them.
	EqualityDeletes DeleteKind = "eq"
)

// DeleteKinds are the derived tables, in the order they are reported.
var DeleteKinds = []DeleteKind{PositionDeletes, DeletionVectors, EqualityDeletes}

// Expected is what a full scan must see: the surviving rows and their sum
// of l_partkey, worked out from the generator's own values, not by
// reading the files back.
type Expected struct {
	Rows       int64 `json:"rows"`
	SumPartKey int64 `json:"sum_l_partkey"`
}

// DeleteTable is one derived table: the plain table's data files (by
// absolute path) plus delete files committed in a second snapshot.
type DeleteTable struct {
	Kind          DeleteKind `json:"kind"`
	FormatVersion int        `json:"format_version"`
	Location      string     `json:"location"`
	MetadataPath  string     `json:"metadata"`
	DeleteFiles   int        `json:"delete_files"`
	// DeleteRecords is the delete files' record count: positions, or
	// equality keys.
	DeleteRecords int64    `json:"delete_records"`
	DeletedRows   int64    `json:"deleted_rows"`
	Expected      Expected `json:"expected"`
}

// DeleteTables are the three derived tables of a plain table.
type DeleteTables struct {
	Plain  Expected      `json:"plain"`
	Tables []DeleteTable `json:"tables"`
	// Generated is false when tables made earlier were reused.
	Generated bool `json:"-"`
}

// Table returns the derived table of a kind, or nil.
func (d *DeleteTables) Table(kind DeleteKind) *DeleteTable {
	for i := range d.Tables {
		if d.Tables[i].Kind == kind {
			return &d.Tables[i]
		}
	}
	return nil
}

type deletesStamp struct {
	Params
	Version        int    `json:"generator_version"`
	DeletesVersion int    `json:"deletes_version"`
	BaseMetadata   string `json:"base_metadata"`
	DeleteTables
}

// deletesDir holds the derived tables, inside the plain table's directory
// (which Generate never empties as a whole).
func deletesDir(base *Table) string { return filepath.Join(base.Location, "deletes") }

// GenerateDeletes derives the delete tables from base, or returns the ones
// already on disk when they were derived from the same table.
func GenerateDeletes(base *Table, logf func(format string, args ...any)) (*DeleteTables, error) {
	dir := deletesDir(base)
	want := deletesStamp{Params: base.Params, Version: generatorVersion, DeletesVersion: deletesVersion, BaseMetadata: base.MetadataPath}
	stampPath := filepath.Join(dir, stampName)
	if have, ok := existingDeletes(stampPath, want); ok {
		return &have.DeleteTables, nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	logf("deriving position delete, deletion vector and equality delete tables under %s", dir)
	start := time.Now()
	picks, err := pickDeletes(base.Params)
	if err != nil {
		return nil, err
	}
	if len(picks) != len(base.DataFiles) {
		return nil, fmt.Errorf("lineitem: %d data files, %d expected", len(base.DataFiles), len(picks))
	}
	data, err := readBaseDataFiles(base.MetadataPath)
	if err != nil {
		return nil, fmt.Errorf("lineitem: reading the plain table's manifest: %w", err)
	}
	out := &DeleteTables{Generated: true}
	for _, p := range picks {
		out.Plain.Rows += p.rows
		out.Plain.SumPartKey += p.sumPartKey
	}
	for _, kind := range DeleteKinds {
		loc := filepath.Join(dir, string(kind))
		dt, err := writeDeleteTable(kind, loc, base, data, picks)
		if err != nil {
			return nil, fmt.Errorf("lineitem: %s table: %w", kind, err)
		}
		out.Tables = append(out.Tables, *dt)
	}
	want.DeleteTables = *out
	js, err := json.MarshalIndent(want, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(stampPath, append(js, '\n'), 0o644); err != nil {
		return nil, err
	}
	logf("derived in %.1fs", time.Since(start).Seconds())
	return out, nil
}

func existingDeletes(stampPath string, want deletesStamp) (*deletesStamp, bool) {
	data, err := os.ReadFile(stampPath)
	if err != nil {
		return nil, false
	}
	var have deletesStamp
	if json.Unmarshal(data, &have) != nil || have.Params != want.Params || have.Version != want.Version ||
		have.DeletesVersion != want.DeletesVersion || have.BaseMetadata != want.BaseMetadata || len(have.Tables) != len(DeleteKinds) {
		return nil, false
	}
	for _, t := range have.Tables {
		if _, err := os.Stat(t.MetadataPath); err != nil {
			return nil, false
		}
	}
	return &have, true
}

var errNoSnapshot = errors.New("the plain table has no current snapshot")
