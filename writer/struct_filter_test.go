package writer

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/scan"
)

// Filters on fields inside structs, checked as a property: over a table
// floe's writer partitioned by hour of a nested timestamp, with small row
// groups and pages, random filters on struct fields (dotted and quoted
// names, nulls from the field and from its struct) return exactly the
// rows this file's own evaluator keeps from an unfiltered scan. The
// evaluator shares nothing with floe's filter code; its rules are floe's:
// a null (the field's, or its struct's) satisfies only "is null", NaN is
// != and "not in" everything and nothing else.

const structBaseMicros = int64(1_717_200_000_000_000) // 2024-06-01T00:00Z

func structFilterSchema() *iceberg.Schema {
	b := &schemaBuilder{}
	id := b.field("id", iceberg.LongType{}, true)
	st := b.field("st", &iceberg.StructType{Fields: []iceberg.NestedField{
		b.field("a", iceberg.IntType{}, false),
		b.field("k", iceberg.StringType{}, false),
		b.field("ts", iceberg.TimestampType{}, false),
	}}, false)
	rs := b.field("rs", &iceberg.StructType{Fields: []iceberg.NestedField{
		b.field("x", iceberg.LongType{}, true),
		b.field("y", iceberg.DoubleType{}, false),
	}}, true)
	v := b.field("v", iceberg.IntType{}, false)
	return iceberg.NewSchema(0, []iceberg.NestedField{id, st, rs, v})
}

var structWords = []string{"", "alpha", "beta", "gamma", "x", "delta"}

func structFilterRows(r *rand.Rand, n int) [][]any {
	maybe := func(p float64, v any) any {
		if r.Float64() < p {
			return nil
		}
		return v
	}
	rows := make([][]any, n)
	for i := range rows {
		var st any
		if r.IntN(100) >= 15 {
			st = []any{
				maybe(0.1, int32(r.IntN(41)-20)),
				maybe(0.1, structWords[r.IntN(len(structWords))]),
				maybe(0.1, structBaseMicros+int64(i)*7_200_000_000/int64(n)*3+int64(r.IntN(1000))),
			}
		}
		y := any(float64(r.IntN(200)) / 4)
		switch r.IntN(20) {
		case 0:
			y = nil
		case 1:
			y = math.NaN()
		}
		rows[i] = []any{int64(i), st, []any{int64(i * 3), y}, maybe(0.1, int32(r.IntN(10)))}
	}
	return rows
}

// structLeaf names a primitive field of the schema by its path.
type structLeaf struct {
	path []int // positions from the top level down
	name []string
	typ  iceberg.Type
}

func structLeaves(schema *iceberg.Schema) []structLeaf {
	var out []structLeaf
	var walk func(fields []iceberg.NestedField, path []int, names []string)
	walk = func(fields []iceberg.NestedField, path []int, names []string) {
		for i, f := range fields {
			p, n := append(slices.Clone(path), i), append(slices.Clone(names), f.Name)
			if st, ok := f.Type.(*iceberg.StructType); ok {
				walk(st.Fields, p, n)
				continue
			}
			out = append(out, structLeaf{path: p, name: n, typ: f.Type})
		}
	}
	walk(schema.Fields, nil, nil)
	return out
}

// value is the leaf's value in a row: nil when it or a struct above it is.
func (l structLeaf) value(row []any) any {
	var v any = row
	for _, i := range l.path {
		if v == nil {
			return nil
		}
		v = v.([]any)[i]
	}
	return v
}

// spell writes the leaf's name in one of the grammar's spellings.
func (l structLeaf) spell(r *rand.Rand) string {
	switch r.IntN(4) {
	case 0:
		return `"` + strings.Join(l.name, ".") + `"`
	case 1:
		q := slices.Clone(l.name)
		q[0] = `"` + q[0] + `"`
		return strings.Join(q, ".")
	}
	return strings.Join(l.name, ".")
}

type structPred struct {
	kind     byte // 'a', 'o', 'n', 'p'
	l, r     *structPred
	leaf     structLeaf
	op       string
	lits     []any
	spelling string
}

func (p *structPred) text() string {
	switch p.kind {
	case 'a':
		return "(" + p.l.text() + " and " + p.r.text() + ")"
	case 'o':
		return "(" + p.l.text() + " or " + p.r.text() + ")"
	case 'n':
		return "not (" + p.l.text() + ")"
	}
	switch p.op {
	case "is null", "is not null", "is nan", "is not nan":
		return p.spelling + " " + p.op
	case "in", "not in":
		parts := make([]string, len(p.lits))
		for i, v := range p.lits {
			parts[i] = structLiteral(v)
		}
		return p.spelling + " " + p.op + " (" + strings.Join(parts, ", ") + ")"
	}
	return p.spelling + " " + p.op + " " + structLiteral(p.lits[0])
}

func structLiteral(v any) string {
	switch v := v.(type) {
	case string:
		return "'" + v + "'"
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

func (p *structPred) eval(row []any, negate bool) bool {
	switch p.kind {
	case 'a', 'o':
		if (p.kind == 'a') != negate {
			return p.l.eval(row, negate) && p.r.eval(row, negate)
		}
		return p.l.eval(row, negate) || p.r.eval(row, negate)
	case 'n':
		return p.l.eval(row, !negate)
	}
	op := p.op
	if negate {
		op = map[string]string{"=": "!=", "!=": "=", "<": ">=", ">=": "<", "<=": ">", ">": "<=",
			"in": "not in", "not in": "in", "is null": "is not null", "is not null": "is null",
			"is nan": "is not nan", "is not nan": "is nan"}[op]
	}
	v := p.leaf.value(row)
	switch op {
	case "is null":
		return v == nil
	case "is not null":
		return v != nil
	}
	if v == nil {
		return false
	}
	nan := false
	if f, ok := v.(float64); ok && math.IsNaN(f) {
		nan = true
	}
	switch op {
	case "is nan":
		return nan
	case "is not nan":
		return !nan
	case "in", "not in":
		in := false
		for _, l := range p.lits {
			if !nan && structCompare(v, l) == 0 {
				in = true
			}
		}
		return in == (op == "in")
	}
	if nan {
		return op == "!="
	}
	c := structCompare(v, p.lits[0])
	switch op {
	case "=":
		return c == 0
	case "!=":
		return c != 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	}
	return c >= 0
}

func structCompare(a, b any) int {
	switch a := a.(type) {
	case int32:
		return cmp.Compare(a, b.(int32))
	case int64:
		return cmp.Compare(a, b.(int64))
	case float64:
		return cmp.Compare(a, b.(float64)) // no NaN reaches here
	case string:
		return strings.Compare(a, b.(string))
	}
	panic(fmt.Sprintf("structCompare: %T", a))
}

func TestStructFieldFilters(t *testing.T) {
	ctx := context.Background()
	schema := structFilterSchema()
	leaves := structLeaves(schema)
	tsLeaf := leaves[slices.IndexFunc(leaves, func(l structLeaf) bool { return strings.Join(l.name, ".") == "st.ts" })]
	tsID := schema.Fields[1].Type.(*iceberg.StructType).Fields[2].ID
	spec := &iceberg.PartitionSpec{Fields: []iceberg.PartitionField{{SourceID: tsID, FieldID: 1000, Name: "ts_hour", Transform: iceberg.HourTransform{}}}}
	tbl, err := table.Create(ctx, nil, filepath.Join(t.TempDir(), "tbl"), schema, spec, nil,
		map[string]string{PropRowGroupSize: "4096", PropPageRowLimit: "40"}, 2)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 11))
	rows := structFilterRows(r, 2400)
	appendInBatches(t, tbl, rows, 600, 150)
	tbl, err = table.Open(ctx, tbl.MetadataLocation, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	all := structScan(t, tbl, "")
	if len(all) != len(rows) {
		t.Fatalf("unfiltered scan: %d rows, wrote %d", len(all), len(rows))
	}
	values := make([][]any, len(leaves))
	for _, row := range all {
		for i, l := range leaves {
			if v := l.value(row); v != nil {
				values[i] = append(values[i], v)
			}
		}
	}
	var gen func(depth int) *structPred
	gen = func(depth int) *structPred {
		k := r.IntN(100)
		switch {
		case depth < 2 && k < 20:
			return &structPred{kind: 'a', l: gen(depth + 1), r: gen(depth + 1)}
		case depth < 2 && k < 35:
			return &structPred{kind: 'o', l: gen(depth + 1), r: gen(depth + 1)}
		case depth < 2 && k < 45:
			return &structPred{kind: 'n', l: gen(depth + 1)}
		}
		li := r.IntN(len(leaves))
		p := &structPred{kind: 'p', leaf: leaves[li], spelling: leaves[li].spell(r)}
		ops := []string{"=", "!=", "<", "<=", ">", ">=", "in", "not in", "is null", "is not null"}
		if _, ok := p.leaf.typ.(iceberg.DoubleType); ok {
			ops = append(ops, "is nan", "is not nan")
		}
		p.op = ops[r.IntN(len(ops))]
		pick := func() any {
			vs := values[li]
			v := vs[r.IntN(len(vs))]
			if f, ok := v.(float64); ok && math.IsNaN(f) {
				return 1.5
			}
			return v
		}
		switch p.op {
		case "is null", "is not null", "is nan", "is not nan":
		case "in", "not in":
			for n := 1 + r.IntN(3); n > 0; n-- {
				p.lits = append(p.lits, pick())
			}
		default:
			p.lits = []any{pick()}
		}
		return p
	}
	for i := 0; i < 150; i++ {
		p := gen(0)
		text := p.text()
		got := structScan(t, tbl, text)
		var want []string
		for _, row := range all {
			if p.eval(row, false) {
				want = append(want, fmt.Sprint(row))
			}
		}
		have := make([]string, len(got))
		for j, row := range got {
			have[j] = fmt.Sprint(row)
		}
		slices.Sort(want)
		slices.Sort(have)
		if !slices.Equal(have, want) {
			var missing, extra []string
			for _, w := range want {
				if !slices.Contains(have, w) {
					missing = append(missing, w)
				}
			}
			for _, h := range have {
				if !slices.Contains(want, h) {
					extra = append(extra, h)
				}
			}
			t.Fatalf("filter %s: %d rows, want %d; missing %.300v, unexpected %.300v", text, len(have), len(want), missing, extra)
		}
	}
	// The struct fields prune: a nested source's hour partition rules out
	// manifests' files by partition, and a required struct's field's
	// metrics and statistics rule out files and row groups.
	first := structBaseMicros + 3*3_600_000_000
	for _, c := range []struct {
		filter string
		check  func(scan.Metrics) bool
	}{
		{fmt.Sprintf("st.ts < %d", first), func(m scan.Metrics) bool { return m.FilesSkipped > 0 }},
		{"rs.x >= 6000 and rs.x < 6300", func(m scan.Metrics) bool { return m.FilesSkipped > 0 && m.RowGroupsSkipped > 0 }},
	} {
		s, err := scan.New(ctx, tbl, scan.Options{Filter: mustFilter(c.filter)})
		if err != nil {
			t.Fatal(err)
		}
		n := countRows(t, s)
		want := 0
		for _, row := range all {
			switch {
			case strings.HasPrefix(c.filter, "st.ts"):
				if v := tsLeaf.value(row); v != nil && v.(int64) < first {
					want++
				}
			default:
				if x := row[2].([]any)[0].(int64); x >= 6000 && x < 6300 {
					want++
				}
			}
		}
		if n != want || !c.check(s.Metrics()) {
			t.Errorf("%s: %d rows (want %d), metrics %+v", c.filter, n, want, s.Metrics())
		}
	}
}

// structScan reads the table with a filter, rows in canonical values.
func structScan(t *testing.T, tbl *table.Table, filter string) [][]any {
	t.Helper()
	opts := scan.Options{Threads: 2}
	if filter != "" {
		opts.Filter = mustFilter(filter)
	}
	return scanRows(t, tbl, opts)
}
