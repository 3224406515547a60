package inspect

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/internal/fixtures"
)

// jsonTable is what the history, metadata_log_entries and refs tests
// compare with: a metadata file as the JSON spells it, decoded with
// encoding/json rather than floe's parser.
type jsonTable struct {
	Current     *json.Number       `json:"current-snapshot-id"`
	LastUpdated int64              `json:"last-updated-ms"`
	Snapshots   []jsonSnap         `json:"snapshots"`
	SnapshotLog []jsonLog          `json:"snapshot-log"`
	MetadataLog []jsonMDLog        `json:"metadata-log"`
	Refs        map[string]jsonRef `json:"refs"`
}

type jsonSnap struct {
	ID       json.Number       `json:"snapshot-id"`
	Parent   *json.Number      `json:"parent-snapshot-id"`
	Sequence *int64            `json:"sequence-number"`
	SchemaID *int32            `json:"schema-id"`
	List     string            `json:"manifest-list"`
	Summary  map[string]string `json:"summary"`
}

type jsonLog struct {
	ID json.Number `json:"snapshot-id"`
	Ms int64       `json:"timestamp-ms"`
}

type jsonMDLog struct {
	File string `json:"metadata-file"`
	Ms   int64  `json:"timestamp-ms"`
}

type jsonRef struct {
	ID             json.Number `json:"snapshot-id"`
	Type           string      `json:"type"`
	MaxRefAge      *int64      `json:"max-ref-age-ms"`
	MinSnapshots   *int32      `json:"min-snapshots-to-keep"`
	MaxSnapshotAge *int64      `json:"max-snapshot-age-ms"`
}

func readJSONTable(t *testing.T, path string) jsonTable {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc jsonTable
	dec := json.NewDecoder(bytesReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return doc
}

// id is a JSON snapshot id as a long; -1 for none.
func id(t *testing.T, n *json.Number) int64 {
	t.Helper()
	if n == nil {
		return -1
	}
	v, err := n.Int64()
	if err != nil {
		t.Fatalf("snapshot id %q: %v", *n, err)
	}
	return v
}

func allFixtures(t *testing.T) []fixtures.Table {
	t.Helper()
	all, err := fixtures.All()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 10 {
		t.Fatalf("only %d fixture tables", len(all))
	}
	return all
}

// tableRows is a metadata table's batches as rows of Go values: int32,
// int64 (timestamps too), string, bool, []byte, nil for null; a list is
// []any, a struct []any.
func tableRows(recs []arrow.RecordBatch) [][]any {
	var out [][]any
	for _, rec := range recs {
		for i := 0; i < int(rec.NumRows()); i++ {
			row := make([]any, rec.NumCols())
			for c := range row {
				row[c] = arrowCell(rec.Column(c), i)
			}
			out = append(out, row)
		}
	}
	return out
}

func arrowCell(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch a := a.(type) {
	case *array.Int32:
		return a.Value(i)
	case *array.Int64:
		return a.Value(i)
	case *array.Timestamp:
		return int64(a.Value(i))
	case *array.String:
		return a.Value(i)
	case *array.Boolean:
		return a.Value(i)
	case *array.Binary:
		return append([]byte{}, a.Value(i)...)
	case *array.List:
		start, end := a.ValueOffsets(i)
		out := []any{}
		for j := start; j < end; j++ {
			out = append(out, arrowCell(a.ListValues(), int(j)))
		}
		return out
	case *array.Struct:
		out := make([]any, a.NumField())
		for f := range out {
			out[f] = arrowCell(a.Field(f), i)
		}
		return out
	}
	panic("arrowCell: unexpected array " + a.DataType().String())
}
