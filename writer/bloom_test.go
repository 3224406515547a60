package writer

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/parquet"
	"github.com/floedb/floe/reader/scan"
)

// Bloom filters written by the writer, checked through floe's reader:
// the reader's SBBF probe over the file's chunks (no written value is
// missing, absent values mostly are), and scans whose equality filter on
// an absent value skip row groups by the filters alone.

func bloomSchema() *iceberg.Schema {
	return iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true},
		{ID: 2, Name: "name", Type: iceberg.StringType{}},
		{ID: 3, Name: "other", Type: iceberg.LongType{}},
	})
}

// bloomRows are n rows whose ids and names are even numbers in random
// order, so every row group's bounds span almost the whole range and only
// a bloom filter can tell an odd value absent; every tenth name is null.
func bloomRows(seed uint64, n int) [][]any {
	r := rand.New(rand.NewPCG(seed, 3))
	rows := make([][]any, n)
	for i, k := range r.Perm(n) {
		var name any = fmt.Sprintf("name-%08d", 2*k)
		if k%10 == 3 {
			name = nil
		}
		rows[i] = []any{int64(2 * k), name, int64(2 * k)}
	}
	return rows
}

func bloomTable(t *testing.T, props map[string]string) *table.Table {
	t.Helper()
	base := map[string]string{
		PropRowGroupSize: "32768", PropBloomColumnPrefix + "id": "true", PropBloomColumnPrefix + "name": "true",
		PropBloomColumnPrefix + "other": "false",
	}
	for k, v := range props {
		base[k] = v
	}
	tbl, err := table.Create(context.Background(), nil, filepath.Join(t.TempDir(), "tbl"), bloomSchema(), nil, nil, base, 2)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

func TestBloomFiltersNoFalseNegatives(t *testing.T) {
	tbl := bloomTable(t, nil)
	rows := bloomRows(1, 20000)
	files := writeTableBatches(t, tbl, rows, 5000)
	if len(files) != 1 {
		t.Fatalf("%d files, want 1", len(files))
	}
	f := openBloomFile(t, files[0].FilePath)
	groups := f.RowGroups
	if len(groups) < 4 {
		t.Fatalf("%d row groups, want several", len(groups))
	}
	// Rows in file order, to know which group holds which value.
	start := 0
	falsePos, probes := 0, 0
	for g := range groups {
		n := int(groups[g].NumRows)
		ids, names := map[int64]bool{}, map[string]bool{}
		for _, row := range rows[start : start+n] {
			ids[row[0].(int64)] = true
			if row[1] != nil {
				names[row[1].(string)] = true
			}
		}
		start += n
		cols := groups[g].Columns
		if cols[2].BloomFilterOffset != 0 {
			t.Errorf("row group %d: column other has a bloom filter, its property says false", g)
		}
		idBloom, nameBloom := readBloom(t, f, &cols[0]), readBloom(t, f, &cols[1])
		for id := range ids {
			if !idBloom.MayContain(hashLong(id)) {
				t.Fatalf("row group %d: id %d written but not in the bloom filter", g, id)
			}
		}
		for name := range names {
			if !nameBloom.MayContain(hashBytes([]byte(name))) {
				t.Fatalf("row group %d: name %q written but not in the bloom filter", g, name)
			}
		}
		for k := range int64(2000) {
			probes += 2
			if idBloom.MayContain(hashLong(2*k + 1)) {
				falsePos++
			}
			if nameBloom.MayContain(hashBytes([]byte(fmt.Sprintf("name-%08d", 2*k+1)))) {
				falsePos++
			}
		}
	}
	// fpp 0.01 asked; the power-of-two sizing only lowers it.
	if rate := float64(falsePos) / float64(probes); rate > 0.02 {
		t.Errorf("false positive rate %.4f over %d probes, want about 0.01 or less", rate, probes)
	}
}

// A tighter probability makes larger filters and fewer false positives;
// the max-bytes cap bounds them.
func TestBloomFilterSizing(t *testing.T) {
	sizes := map[string]int32{}
	for _, c := range []struct{ name, fpp, max string }{{"default", "", ""}, {"tight", "0.0001", ""}, {"capped", "0.0001", "1024"}} {
		props := map[string]string{}
		if c.fpp != "" {
			props[PropBloomFPP] = c.fpp
		}
		if c.max != "" {
			props[PropBloomMaxBytes] = c.max
		}
		tbl := bloomTable(t, props)
		files := writeTableBatches(t, tbl, bloomRows(2, 4000), 4000)
		f := openBloomFile(t, files[0].FilePath)
		cc := &f.RowGroups[0].Columns[0]
		b := readBloom(t, f, cc)
		sizes[c.name] = int32(len(b.Blocks))
	}
	if !(sizes["tight"] > sizes["default"] && sizes["capped"] == 1024) {
		t.Errorf("bitset bytes %v: want tight > default and capped = 1024", sizes)
	}
}

func TestBloomFilterPropertiesRefused(t *testing.T) {
	for _, props := range []map[string]string{
		{PropBloomColumnPrefix + "id": "yes please"},
		{PropBloomFPP: "1.5"},
		{PropBloomFPPColumnPrefix + "id": "0", PropBloomColumnPrefix + "id": "true"},
		{PropBloomMaxBytes: "-1"},
	} {
		if _, err := OptionsFromProperties(props, bloomSchema()); !errors.Is(err, errkind.InvalidArgument) {
			t.Errorf("%v: %v, want an invalid argument", props, err)
		}
	}
	o, err := OptionsFromProperties(map[string]string{
		PropBloomColumnPrefix + "id": "true", PropBloomColumnPrefix + "gone": "true",
		PropBloomFPPColumnPrefix + "id": "0.05", PropBloomColumnPrefix + "name": "TRUE",
	}, bloomSchema())
	if err != nil || len(o.BloomFilters) != 2 || o.BloomFilters[1] != 0.05 || o.BloomFilters[2] != DefaultBloomFPP {
		t.Errorf("bloom options %v, %v: want id at 0.05, name at the default, the missing column ignored", o.BloomFilters, err)
	}
}

// Scans with an equality filter skip the row groups whose bloom filter
// rules the value out: all of them for a value never written (its bounds
// are inside every group's), all but its own for a written one.
func TestBloomFiltersPruneScans(t *testing.T) {
	ctx := context.Background()
	tbl := bloomTable(t, nil)
	rows := bloomRows(3, 20000)
	files := writeTableBatches(t, tbl, rows, 5000)
	if _, err := tbl.Append(ctx, files, table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	tbl = reopened(t, tbl)
	groups := len(openBloomFile(t, files[0].FilePath).RowGroups)
	count := func(filter expr.Expr) (int, scan.Metrics) {
		s, err := scan.New(ctx, tbl, scan.Options{Filter: filter})
		if err != nil {
			t.Fatal(err)
		}
		n := countRows(t, s)
		return n, s.Metrics()
	}
	eq := func(col string, v any) expr.Expr {
		p, err := expr.NewPredicate(expr.OpEq, col, v)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	absent := []expr.Expr{eq("id", int64(10001)), eq("name", "name-00010001"), eq("id", int64(333)), eq("name", "name-00000777")}
	skipped := 0
	for _, f := range absent {
		n, m := count(f)
		if n != 0 {
			t.Fatalf("%s: %d rows of none", f, n)
		}
		skipped += int(m.RowGroupsSkipped)
	}
	// Each filter's groups all skipped but for the odd false positive.
	if want := len(absent) * groups; skipped < want-2 {
		t.Errorf("absent values skipped %d of %d row groups", skipped, want)
	}
	// A present value: its row group is read, the others skipped.
	for _, f := range []expr.Expr{eq("id", rows[7][0]), eq("name", rows[11][1])} {
		n, m := count(f)
		if n != 1 || m.RowGroupsRead < 1 || int(m.RowGroupsSkipped) < groups-2 {
			t.Errorf("%s: %d rows, metrics %+v over %d row groups; want 1 row, its group read and the rest mostly skipped", f, n, m, groups)
		}
	}
	// Without the filters the same absent value reads every group.
	plain := bloomTable(t, map[string]string{PropBloomColumnPrefix + "id": "false"})
	files = writeTableBatches(t, plain, rows, 5000)
	if _, err := plain.Append(ctx, files, table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	tbl = reopened(t, plain)
	if n, m := count(eq("id", int64(10001))); n != 0 || m.RowGroupsSkipped != 0 {
		t.Errorf("no bloom filter on id: %d rows, %d row groups skipped; want none skipped", n, m.RowGroupsSkipped)
	}
}

// openBloomFile opens a written file with floe's reader until the test ends.
func openBloomFile(t *testing.T, path string) *parquet.File {
	t.Helper()
	f, closeFile := openParquet(t, strings.TrimPrefix(path, "file://"))
	t.Cleanup(closeFile)
	return f
}

// hashLong and hashBytes are the spec's bloom hashes of a long and of a
// byte array: XXH64 of the PLAIN encoding (a byte array without its
// length prefix).
func hashLong(v int64) uint64 { return xxhash.Sum64(binary.LittleEndian.AppendUint64(nil, uint64(v))) }

func hashBytes(b []byte) uint64 { return xxhash.Sum64(b) }

func readBloom(t *testing.T, f *parquet.File, cc *parquet.ColumnChunk) *parquet.SplitBlockBloom {
	t.Helper()
	b, err := f.ReadBloomFilter(cc)
	if err != nil || b == nil {
		t.Fatalf("column %v: bloom filter %v, %v", cc.Path, b, err)
	}
	return b
}
