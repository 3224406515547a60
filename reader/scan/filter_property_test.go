package scan

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/testtable"
)

// The filter property test: for many random predicates over generated
// tables (unpartitioned, and partitioned by identity, bucket, truncate and
// day), a filtered scan returns exactly the rows that an unfiltered scan
// returns and this file's own evaluator keeps. Pruning (files, row
// groups, pages) and late materialisation may change how rows are found,
// never which.
//
// The evaluator below is independent of floe's filter code (it shares
// neither the parser nor the binder nor the kernels) and follows the
// semantics floe documents: NOT is pushed down onto the predicates as
// their negated operators; a null satisfies only "is null" (so it fails
// =, !=, <, in, not in, starts with, not starts with and "is not nan"
// alike); for doubles, NaN is never =, <, <=, >, >= or in anything but is
// != and not in every literal, and -0 equals 0.
//
// FLOE_FILTER_SEED=n reruns with another seed; the seed in use is printed
// when the test fails.

const fpDefaultSeed = 20260901

func fpSeed(t *testing.T) uint64 {
	if s := os.Getenv("FLOE_FILTER_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("FLOE_FILTER_SEED=%q: %v", s, err)
		}
		return n
	}
	return fpDefaultSeed
}

// fpSettings are the seed (named in the log if the test fails) and the
// number of random filters per table (fewer with -short).
func fpSettings(t *testing.T) (seed uint64, perTable int) {
	seed = fpSeed(t)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("seed %d (rerun with FLOE_FILTER_SEED=%d)", seed, seed)
		}
	})
	if testing.Short() {
		return seed, 40
	}
	return seed, 160
}

func TestFilterPropertyRandomPredicates(t *testing.T) {
	seed, perTable := fpSettings(t)
	layouts := []struct {
		name string
		opts testtable.Options
	}{
		{"unpartitioned", testtable.Options{Rows: testtable.RandomRows(seed, 3000), RowsPerFile: 800, RowsPerRowGroup: 200}},
		{"identity(b),bucket[3](i)", testtable.Options{
			Rows: testtable.RandomRows(seed+1, 1500), RowsPerRowGroup: 60, MetricsMode: "full", DataPageVersion: 2,
			Spec: iceberg.PartitionSpec{Fields: []iceberg.PartitionField{
				{SourceID: testtable.IDBool, Transform: iceberg.IdentityTransform{}},
				{SourceID: testtable.IDInt, Transform: iceberg.BucketTransform{N: 3}},
			}},
		}},
		{"day(ts),truncate[1](s)", testtable.Options{
			Rows: testtable.RandomRows(seed+2, 1500), RowsPerRowGroup: 20, RowsPerPage: 8, MetricsMode: "counts", Manifests: 3,
			Spec: iceberg.PartitionSpec{Fields: []iceberg.PartitionField{
				{SourceID: testtable.IDTimestamp, Transform: iceberg.DayTransform{}},
				{SourceID: testtable.IDString, Transform: iceberg.TruncateTransform{Width: 1}},
			}},
		}},
	}
	for li, layout := range layouts {
		t.Run(layout.name, func(t *testing.T) {
			ft := fpBuild(t, layout.opts)
			r := rand.New(rand.NewPCG(seed, uint64(li)))
			failures := 0
			for i := 0; i < perTable && failures < 5; i++ {
				c := fpCase{
					root:    fpGenerate(r, ft, 0),
					json:    i%2 == 1,
					threads: 1 + 3*(i/2%2),
				}
				if i/4%2 == 1 {
					n := int64(r.IntN(40))
					c.limit = &n
				}
				c.columns = fpProjection(r, ft.schema)
				c.batchSize = []int{0, 7, 100}[r.IntN(3)]
				if !fpCheck(t, ft, c) {
					failures++
				}
			}
		})
	}
}

// fpTable is a generated table and the rows an unfiltered scan returns,
// by id.
type fpTable struct {
	built  *testtable.Table
	opened *table.Table
	schema *iceberg.Schema
	rows   map[int64][]any
	// values are each column's non-null values, where literals are drawn.
	values [][]any
}

func fpBuild(t *testing.T, opts testtable.Options) *fpTable {
	t.Helper()
	return fpBuildReadAs(t, opts, nil)
}

// fpBuildReadAs is fpBuild for a table whose reader returns readAs(row)
// for each written row (nil: the rows as written).
func fpBuildReadAs(t *testing.T, opts testtable.Options, readAs func([]any) []any) *fpTable {
	t.Helper()
	built, err := testtable.Build(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	opened, err := table.Open(context.Background(), built.MetadataPath, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ft := &fpTable{built: built, opened: opened, schema: built.Schema, rows: map[int64][]any{}}
	names := make([]string, len(ft.schema.Fields))
	for i, f := range ft.schema.Fields {
		names[i] = f.Name
	}
	got, err := fpScan(ft, Options{Threads: 1}, names)
	if err != nil {
		t.Fatal(err)
	}
	// Everything else rests on the unfiltered scan returning the rows
	// that were written.
	if len(got) != len(built.Rows) {
		t.Fatalf("unfiltered scan: %d rows, %d written", len(got), len(built.Rows))
	}
	for _, row := range got {
		id := row[0].(int64)
		if _, dup := ft.rows[id]; dup {
			t.Fatalf("unfiltered scan: id %d twice", id)
		}
		want := built.Rows[id]
		if readAs != nil {
			want = readAs(want)
		}
		if fpRender(row) != fpRender(want) {
			t.Fatalf("unfiltered scan: row %d is\n  %s\nwritten as\n  %s", id, fpRender(row), fpRender(want))
		}
		ft.rows[id] = row
	}
	ft.values = make([][]any, len(names))
	for _, row := range built.Rows {
		for c, v := range row {
			if v != nil {
				ft.values[c] = append(ft.values[c], v)
			}
		}
	}
	return ft
}

// fpCase is one filtered scan.
type fpCase struct {
	root      *fpNode
	json      bool
	threads   int
	limit     *int64
	columns   []string // nil: all
	batchSize int
}

func (c fpCase) filter(ft *fpTable) expr.Expr {
	if c.json {
		return textFilter(c.root.jsonForm(ft.schema))
	}
	return textFilter(c.root.text(ft.schema))
}

func (c fpCase) describe(ft *fpTable) string {
	limit := "none"
	if c.limit != nil {
		limit = strconv.FormatInt(*c.limit, 10)
	}
	cols := "all"
	if c.columns != nil {
		cols = strings.Join(c.columns, ",")
	}
	return fmt.Sprintf("filter %s\n  threads %d, limit %s, columns %s, batch size %d", c.filter(ft), c.threads, limit, cols, c.batchSize)
}

// fpCheck runs one case and reports whether it returned the right rows.
func fpCheck(t *testing.T, ft *fpTable, c fpCase) bool {
	t.Helper()
	cols := c.columns
	if cols == nil {
		cols = make([]string, len(ft.schema.Fields))
		for i, f := range ft.schema.Fields {
			cols[i] = f.Name
		}
	}
	got, err := fpScan(ft, Options{Filter: c.filter(ft), Threads: c.threads, Limit: c.limit, Columns: c.columns, BatchSize: c.batchSize}, cols)
	if err != nil {
		t.Errorf("%s\n  scan failed: %v", c.describe(ft), err)
		return false
	}
	positions := make([]int, len(cols))
	for i, name := range cols {
		positions[i] = fpFieldIndex(ft.schema, name)
	}
	var want []string
	for id := int64(0); id < int64(len(ft.rows)); id++ {
		row := ft.rows[id]
		if c.root.eval(row, false) {
			want = append(want, fpRender(fpProject(row, positions)))
		}
	}
	have := make([]string, len(got))
	for i, row := range got {
		have[i] = fpRender(row)
	}
	sort.Strings(want)
	sort.Strings(have)
	if c.limit == nil {
		if !slices.Equal(have, want) {
			t.Errorf("%s\n  %d rows, want %d; %s", c.describe(ft), len(have), len(want), fpDiff(have, want))
			return false
		}
		return true
	}
	wantN := min(int(*c.limit), len(want))
	if len(have) != wantN {
		t.Errorf("%s\n  %d rows, want %d (%d match)", c.describe(ft), len(have), wantN, len(want))
		return false
	}
	// Every row returned must be a matching row, each at most as often.
	pool := map[string]int{}
	for _, w := range want {
		pool[w]++
	}
	for _, h := range have {
		if pool[h] == 0 {
			t.Errorf("%s\n  returned a row that does not match (or too often): %s", c.describe(ft), h)
			return false
		}
		pool[h]--
	}
	return true
}

func fpFieldIndex(s *iceberg.Schema, name string) int {
	for i, f := range s.Fields {
		if f.Name == name {
			return i
		}
	}
	panic("no column " + name)
}

func fpProject(row []any, positions []int) []any {
	out := make([]any, len(positions))
	for i, p := range positions {
		out[i] = row[p]
	}
	return out
}

// fpDiff names a few rows one side has and the other lacks.
func fpDiff(have, want []string) string {
	count := func(xs []string) map[string]int {
		m := map[string]int{}
		for _, x := range xs {
			m[x]++
		}
		return m
	}
	h, w := count(have), count(want)
	var extra, missing []string
	for x, n := range h {
		if n > w[x] {
			extra = append(extra, x)
		}
	}
	for x, n := range w {
		if n > h[x] {
			missing = append(missing, x)
		}
	}
	sort.Strings(extra)
	sort.Strings(missing)
	cut := func(xs []string) string {
		if len(xs) > 3 {
			return strings.Join(xs[:3], "\n      ") + fmt.Sprintf("\n      … %d more", len(xs)-3)
		}
		return strings.Join(xs, "\n      ")
	}
	return fmt.Sprintf("\n    unexpected (%d):\n      %s\n    missing (%d):\n      %s", len(extra), cut(extra), len(missing), cut(missing))
}

// fpProjection picks all columns (nil) half the time, else a random
// subset that may leave out the filter's columns.
func fpProjection(r *rand.Rand, s *iceberg.Schema) []string {
	if r.IntN(2) == 0 {
		return nil
	}
	var cols []string
	for _, f := range s.Fields {
		if r.IntN(3) == 0 {
			cols = append(cols, f.Name)
		}
	}
	if len(cols) == 0 {
		cols = []string{s.Fields[r.IntN(len(s.Fields))].Name}
	}
	return cols
}

// fpScan runs a scan and returns its rows as canonical Go values, in the
// order of cols.
func fpScan(ft *fpTable, opts Options, cols []string) ([][]any, error) {
	ctx := context.Background()
	s, err := New(ctx, ft.opened, opts)
	if err != nil {
		return nil, err
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	rr, err := s.Reader(ctx, mem)
	if err != nil {
		return nil, err
	}
	var rows [][]any
	for rr.Next() {
		rec := rr.RecordBatch()
		if int(rec.NumCols()) != len(cols) {
			rr.Release()
			return nil, fmt.Errorf("batch has %d columns, want %d", rec.NumCols(), len(cols))
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			row := make([]any, len(cols))
			for c := range row {
				if row[c], err = fpArrowValue(rec.Column(c), i); err != nil {
					rr.Release()
					return nil, err
				}
			}
			rows = append(rows, row)
		}
	}
	err = rr.Err()
	rr.Release()
	if err != nil {
		return nil, err
	}
	if n := mem.CurrentAlloc(); n != 0 {
		return nil, fmt.Errorf("%d bytes still allocated after the scan", n)
	}
	return rows, nil
}

// fpArrowValue is value i of a as the canonical Go value of its Iceberg
// type.
func fpArrowValue(a arrow.Array, i int) (any, error) {
	if a.IsNull(i) {
		return nil, nil
	}
	switch a := a.(type) {
	case *array.Int32:
		return a.Value(i), nil
	case *array.Int64:
		return a.Value(i), nil
	case *array.Float64:
		return a.Value(i), nil
	case *array.String:
		return a.Value(i), nil
	case *array.Boolean:
		return a.Value(i), nil
	case *array.Date32:
		return int32(a.Value(i)), nil
	case *array.Timestamp:
		if unit := a.DataType().(*arrow.TimestampType).Unit; unit != arrow.Microsecond {
			return nil, fmt.Errorf("timestamp in %s, want µs", unit)
		}
		return int64(a.Value(i)), nil
	case *array.Decimal128:
		v := a.Value(i)
		return iceberg.Decimal{Hi: v.HighBits(), Lo: v.LowBits(), Scale: int(a.DataType().(*arrow.Decimal128Type).Scale)}, nil
	}
	return nil, fmt.Errorf("unexpected column type %s", a.DataType())
}

// fpRender spells a row so that equal rows, and only those, spell the
// same: -0 and 0 differ, every NaN is "NaN".
func fpRender(row []any) string {
	parts := make([]string, len(row))
	for i, v := range row {
		switch v := v.(type) {
		case nil:
			parts[i] = "null"
		case float64:
			parts[i] = strconv.FormatFloat(v, 'g', -1, 64)
		case string:
			parts[i] = strconv.Quote(v)
		case iceberg.Decimal:
			parts[i] = v.String()
		default:
			parts[i] = fmt.Sprint(v)
		}
	}
	return strings.Join(parts, ",")
}

// fpOp is a predicate operator of the test's own expression model.
type fpOp int

const (
	fpEq fpOp = iota
	fpNotEq
	fpLt
	fpLtEq
	fpGt
	fpGtEq
	fpIn
	fpNotIn
	fpIsNull
	fpNotNull
	fpIsNaN
	fpNotNaN
	fpStartsWith
	fpNotStartsWith
)

// fpNegated is the operator that holds where op fails on a non-null
// value: NOT applied to a predicate.
var fpNegated = map[fpOp]fpOp{
	fpEq: fpNotEq, fpNotEq: fpEq, fpLt: fpGtEq, fpGtEq: fpLt, fpLtEq: fpGt, fpGt: fpLtEq,
	fpIn: fpNotIn, fpNotIn: fpIn, fpIsNull: fpNotNull, fpNotNull: fpIsNull,
	fpIsNaN: fpNotNaN, fpNotNaN: fpIsNaN, fpStartsWith: fpNotStartsWith, fpNotStartsWith: fpStartsWith,
}

var fpJSONType = map[fpOp]string{
	fpEq: "eq", fpNotEq: "not-eq", fpLt: "lt", fpLtEq: "lt-eq", fpGt: "gt", fpGtEq: "gt-eq",
	fpIn: "in", fpNotIn: "not-in", fpIsNull: "is-null", fpNotNull: "not-null",
	fpIsNaN: "is-nan", fpNotNaN: "not-nan", fpStartsWith: "starts-with", fpNotStartsWith: "not-starts-with",
}

// fpNode is a filter expression: and, or, not, a constant or a
// predicate. Spelling choices (literal first, LIKE for equality, quoted
// names, typed JSON wrappers) are made when it is generated, so the text
// and JSON forms say the same thing.
type fpNode struct {
	kind  byte // 'a'nd, 'o'r, 'n'ot, 't'rue, 'f'alse, 'p'redicate
	l, r  *fpNode
	op    fpOp
	col   int
	lits  []fpLit
	style int // random spelling choices, read bit by bit
}

// fpLit is a literal: the value the evaluator compares with (canonical Go
// form of the column's type) and how each syntax writes it.
type fpLit struct {
	value any
	text  string
	json  string
}

func (n *fpNode) eval(row []any, negate bool) bool {
	switch n.kind {
	case 'a', 'o':
		// De Morgan: under NOT, and becomes or.
		and := (n.kind == 'a') != negate
		if and {
			return n.l.eval(row, negate) && n.r.eval(row, negate)
		}
		return n.l.eval(row, negate) || n.r.eval(row, negate)
	case 'n':
		return n.l.eval(row, !negate)
	case 't':
		return !negate
	case 'f':
		return negate
	}
	op := n.op
	if negate {
		op = fpNegated[op]
	}
	return fpTest(row[n.col], op, n.lits)
}

// fpTest applies one operator to a value.
func fpTest(v any, op fpOp, lits []fpLit) bool {
	switch op {
	case fpIsNull:
		return v == nil
	case fpNotNull:
		return v != nil
	}
	if v == nil {
		return false
	}
	switch op {
	case fpIsNaN:
		return math.IsNaN(v.(float64))
	case fpNotNaN:
		return !math.IsNaN(v.(float64))
	case fpStartsWith:
		return strings.HasPrefix(v.(string), lits[0].value.(string))
	case fpNotStartsWith:
		return !strings.HasPrefix(v.(string), lits[0].value.(string))
	case fpIn, fpNotIn:
		in := false
		for _, l := range lits {
			if c, ok := fpCompare(v, l.value); ok && c == 0 {
				in = true
			}
		}
		return in == (op == fpIn)
	}
	c, ok := fpCompare(v, lits[0].value)
	if !ok { // NaN: unordered
		return op == fpNotEq
	}
	switch op {
	case fpEq:
		return c == 0
	case fpNotEq:
		return c != 0
	case fpLt:
		return c < 0
	case fpLtEq:
		return c <= 0
	case fpGt:
		return c > 0
	}
	return c >= 0
}

// fpCompare orders a column value and a literal of the same type; ok is
// false when either is NaN. Doubles compare as IEEE numbers (-0 == 0),
// strings by UTF-8 bytes, decimals by value.
func fpCompare(a, b any) (int, bool) {
	switch a := a.(type) {
	case float64:
		b := b.(float64)
		switch {
		case math.IsNaN(a) || math.IsNaN(b):
			return 0, false
		case a < b:
			return -1, true
		case a > b:
			return 1, true
		}
		return 0, true
	case int32:
		return fpOrder(a, b.(int32)), true
	case int64:
		return fpOrder(a, b.(int64)), true
	case string:
		return strings.Compare(a, b.(string)), true
	case bool:
		x, y := 0, 0
		if a {
			x = 1
		}
		if b.(bool) {
			y = 1
		}
		return fpOrder(x, y), true
	case iceberg.Decimal:
		bd := b.(iceberg.Decimal)
		if a.Scale != bd.Scale {
			panic("decimal literal of another scale")
		}
		if a.Hi != bd.Hi {
			return fpOrder(a.Hi, bd.Hi), true
		}
		return fpOrder(a.Lo, bd.Lo), true
	}
	panic(fmt.Sprintf("fpCompare: %T", a))
}

func fpOrder[T int | int32 | int64 | uint64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// text spells the node in pyiceberg's row_filter syntax.
func (n *fpNode) text(s *iceberg.Schema) string {
	bit := func(i int) bool { return n.style>>i&1 == 1 }
	switch n.kind {
	case 'a', 'o':
		kw := map[byte]string{'a': " and ", 'o': " or "}[n.kind]
		if bit(0) {
			kw = strings.ToUpper(kw)
		}
		return "(" + n.l.text(s) + kw + n.r.text(s) + ")"
	case 'n':
		return "not (" + n.l.text(s) + ")"
	case 't':
		return "true"
	case 'f':
		return "false"
	}
	col := s.Fields[n.col].Name
	if bit(1) {
		col = `"` + col + `"`
	}
	lit := ""
	if len(n.lits) > 0 {
		lit = n.lits[0].text
	}
	list := func() string {
		parts := make([]string, len(n.lits))
		for i, l := range n.lits {
			parts[i] = l.text
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	switch n.op {
	case fpEq, fpNotEq:
		_, isString := n.lits[0].value.(string)
		if isString && bit(2) {
			like := " like "
			if n.op == fpNotEq {
				like = " not like "
			}
			return col + like + fpQuote(fpEscapeLike(n.lits[0].value.(string)))
		}
		sym := map[fpOp][2]string{fpEq: {"=", "=="}, fpNotEq: {"!=", "<>"}}[n.op][n.style>>3&1]
		if bit(4) {
			return lit + " " + sym + " " + col
		}
		return col + " " + sym + " " + lit
	case fpLt, fpLtEq, fpGt, fpGtEq:
		sym := map[fpOp]string{fpLt: "<", fpLtEq: "<=", fpGt: ">", fpGtEq: ">="}[n.op]
		if bit(4) {
			flipped := map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<="}[sym]
			return lit + " " + flipped + " " + col
		}
		return col + " " + sym + " " + lit
	case fpIn:
		return col + " in " + list()
	case fpNotIn:
		return col + " not in " + list()
	case fpIsNull:
		return col + " is null"
	case fpNotNull:
		return col + " is not null"
	case fpIsNaN:
		return col + " is nan"
	case fpNotNaN:
		return col + " IS NOT NAN"
	case fpStartsWith:
		return col + " like " + fpQuote(fpEscapeLike(n.lits[0].value.(string))+"%")
	}
	return col + " not like " + fpQuote(fpEscapeLike(n.lits[0].value.(string))+"%")
}

// jsonForm spells the node as the REST catalog's JSON expression.
func (n *fpNode) jsonForm(s *iceberg.Schema) string {
	bit := func(i int) bool { return n.style>>i&1 == 1 }
	switch n.kind {
	case 'a', 'o':
		typ := map[byte]string{'a': "and", 'o': "or"}[n.kind]
		return `{"type":"` + typ + `","left":` + n.l.jsonForm(s) + `,"right":` + n.r.jsonForm(s) + `}`
	case 'n':
		return `{"type":"not","child":` + n.l.jsonForm(s) + `}`
	case 't':
		if bit(0) {
			return `{"type":"true"}`
		}
		return "true"
	case 'f':
		return "false"
	}
	term, _ := json.Marshal(s.Fields[n.col].Name)
	if bit(1) {
		term = []byte(`{"type":"reference","name":` + string(term) + `}`)
	}
	lit := func(l fpLit) string {
		if bit(5) {
			return `{"type":"literal","value":` + l.json + `}`
		}
		return l.json
	}
	out := `{"type":"` + fpJSONType[n.op] + `","term":` + string(term)
	switch n.op {
	case fpIsNull, fpNotNull, fpIsNaN, fpNotNaN:
	case fpIn, fpNotIn:
		parts := make([]string, len(n.lits))
		for i, l := range n.lits {
			parts[i] = lit(l)
		}
		out += `,"values":[` + strings.Join(parts, ",") + `]`
	default:
		out += `,"value":` + lit(n.lits[0])
	}
	return out + "}"
}

func fpQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func fpEscapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`).Replace(s)
}

func fpJSONString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// fpGenerate makes a random expression, at most three levels deep.
func fpGenerate(r *rand.Rand, ft *fpTable, depth int) *fpNode {
	n := &fpNode{style: r.IntN(64)}
	k := r.IntN(100)
	switch {
	case depth < 3 && k < 22:
		n.kind, n.l, n.r = 'a', fpGenerate(r, ft, depth+1), fpGenerate(r, ft, depth+1)
	case depth < 3 && k < 40:
		n.kind, n.l, n.r = 'o', fpGenerate(r, ft, depth+1), fpGenerate(r, ft, depth+1)
	case depth < 3 && k < 50:
		n.kind, n.l = 'n', fpGenerate(r, ft, depth+1)
	case k < 52:
		n.kind = 't'
	case k < 53:
		n.kind = 'f'
	default:
		n.kind = 'p'
		fpPredicate(r, ft, n)
	}
	return n
}

// fpPredicate fills in a predicate on a random column.
func fpPredicate(r *rand.Rand, ft *fpTable, n *fpNode) {
	n.col = r.IntN(len(ft.schema.Fields))
	t := ft.schema.Fields[n.col].Type
	ops := []fpOp{fpEq, fpNotEq, fpLt, fpLtEq, fpGt, fpGtEq, fpIn, fpNotIn, fpIsNull, fpNotNull}
	switch t.(type) {
	case iceberg.DoubleType:
		ops = append(ops, fpIsNaN, fpNotNaN, fpIsNaN, fpNotNaN)
	case iceberg.StringType:
		ops = append(ops, fpStartsWith, fpNotStartsWith, fpStartsWith, fpNotStartsWith)
	}
	n.op = ops[r.IntN(len(ops))]
	switch n.op {
	case fpIsNull, fpNotNull, fpIsNaN, fpNotNaN:
	case fpIn, fpNotIn:
		for k := 1 + r.IntN(4); k > 0; k-- {
			n.lits = append(n.lits, fpLiteral(r, ft, n.col))
		}
	case fpStartsWith, fpNotStartsWith:
		n.lits = []fpLit{fpPrefix(r, ft, n.col)}
	default:
		n.lits = []fpLit{fpLiteral(r, ft, n.col)}
	}
}

// fpPrefix is a starts-with pattern: a prefix (in characters) of a value
// in the column, or one of a few that match nothing or everything.
func fpPrefix(r *rand.Rand, ft *fpTable, col int) fpLit {
	var p string
	if vs := ft.values[col]; r.IntN(4) > 0 && len(vs) > 0 {
		runes := []rune(vs[r.IntN(len(vs))].(string))
		p = string(runes[:r.IntN(len(runes)+1)])
	} else {
		p = []string{"", "q", "abcdefghijklmnopq", "abcdefghijklmnopqrstuvwxyz~", "ÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ", "\U0010FFFF", "日本語!", "50%"}[r.IntN(8)]
	}
	return fpLit{value: p, text: fpQuote(p), json: fpJSONString(p)}
}

// fpLiteral is a literal for the column: usually a value the column holds,
// otherwise one between, beyond or at the edge of its values (never
// beyond the range of the type: see the report on binding).
func fpLiteral(r *rand.Rand, ft *fpTable, col int) fpLit {
	t := ft.schema.Fields[col].Type
	var v any
	if vs := ft.values[col]; r.IntN(3) > 0 && len(vs) > 0 {
		v = vs[r.IntN(len(vs))]
	}
	pick := func(xs ...any) any { return xs[r.IntN(len(xs))] }
	switch t.(type) {
	case iceberg.IntType:
		if v == nil {
			v = pick(int32(r.IntN(61)-30), int32(math.MinInt32), int32(math.MaxInt32), int32(math.MaxInt32-1), int32(0))
		}
		return fpNumberLit(r, int64(v.(int32)), v, true)
	case iceberg.LongType:
		if v == nil {
			base := int64(0)
			if vs := ft.values[col]; len(vs) > 0 {
				base = vs[r.IntN(len(vs))].(int64)
			}
			v = pick(base+1, base-1, int64(math.MinInt64), int64(math.MaxInt64), int64(0), r.Int64()-r.Int64())
		}
		return fpNumberLit(r, v.(int64), v, true)
	case iceberg.DoubleType:
		if v == nil {
			v = pick(0.125, -0.125, 999.875, 1e300, -1e300, 5e-324, math.Copysign(0, -1), 0.0, math.Inf(1), math.Inf(-1), 1000.25)
		}
		f := v.(float64)
		if math.IsNaN(f) {
			f = 0.5
		}
		switch {
		case math.IsInf(f, 1):
			return fpLit{value: f, text: "'Infinity'", json: `"Infinity"`}
		case math.IsInf(f, -1):
			return fpLit{value: f, text: "'-Infinity'", json: `"-Infinity"`}
		case f == math.Trunc(f) && math.Abs(f) < 1e15 && r.IntN(2) == 0 && !math.Signbit(f):
			s := strconv.FormatInt(int64(f), 10)
			return fpLit{value: f, text: s, json: s}
		}
		s := strconv.FormatFloat(f, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		return fpLit{value: f, text: s, json: s}
	case iceberg.StringType:
		if v == nil {
			v = pick("", "aa", "abz", "abcdefghijklmnopq", "abcdefghijklmnopqrstuvwxyz~~", "zzzzz", "\U0010FFFF", "ÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ", "日", "😀", "m\U0010FFFF", "O'BRIEN")
		}
		s := v.(string)
		return fpLit{value: s, text: fpQuote(s), json: fpJSONString(s)}
	case iceberg.BooleanType:
		if v == nil {
			v = r.IntN(2) == 0
		}
		s := strconv.FormatBool(v.(bool))
		if r.IntN(4) == 0 {
			return fpLit{value: v, text: fpQuote(s), json: fpJSONString(s)}
		}
		return fpLit{value: v, text: s, json: s}
	case iceberg.DateType:
		if v == nil {
			v = pick(int32(0), int32(-1), int32(-25568), int32(19700), int32(19723+50), int32(2932896))
		}
		d := v.(int32)
		if r.IntN(3) == 0 {
			return fpNumberLit(r, int64(d), d, false)
		}
		s := iceberg.FormatDate(d)
		return fpLit{value: d, text: fpQuote(s), json: fpJSONString(s)}
	case iceberg.TimestampType, iceberg.TimestamptzType:
		if v == nil {
			base := int64(1_709_251_200_000_000) // 2024-03-01
			if vs := ft.values[col]; len(vs) > 0 {
				base = vs[r.IntN(len(vs))].(int64)
			}
			v = pick(base+1, base-1, int64(0), int64(-1), fpYear1000, fpYear9000)
		}
		ts := v.(int64)
		if r.IntN(4) == 0 {
			return fpNumberLit(r, ts, ts, false)
		}
		_, zoned := t.(iceberg.TimestamptzType)
		s := fpTimestampText(r, ts, zoned)
		return fpLit{value: ts, text: fpQuote(s), json: fpJSONString(s)}
	case iceberg.DecimalType:
		dt := t.(iceberg.DecimalType)
		if v == nil {
			var err error
			limit := strings.Repeat("9", dt.Precision-dt.Scale) + "." + strings.Repeat("9", dt.Scale)
			text := pick("0", "0.5", "-0.01", "1000.01", "-1000.01", limit, "-"+limit, "123456.7").(string)
			if v, err = iceberg.ParseDecimal(text, dt.Scale); err != nil {
				panic(err)
			}
		}
		d := v.(iceberg.Decimal)
		s := d.String()
		if n, ok := d.Int64(); ok && dt.Precision <= 15 && r.IntN(2) == 0 {
			// A JSON or text number: exact as a float64 at this size.
			num := strconv.FormatFloat(float64(n)/math.Pow10(dt.Scale), 'f', -1, 64)
			return fpLit{value: d, text: num, json: num}
		}
		return fpLit{value: d, text: fpQuote(s), json: fpJSONString(s)}
	}
	panic(fmt.Sprintf("no literals for %s", t))
}

// fpNumberLit writes an integer as a number, or, where binding accepts
// them for the column (numbers, not dates or timestamps), now and then as
// a string or an integral float.
func fpNumberLit(r *rand.Rand, n int64, value any, flexible bool) fpLit {
	s := strconv.FormatInt(n, 10)
	if flexible {
		switch r.IntN(6) {
		case 0:
			return fpLit{value: value, text: fpQuote(s), json: fpJSONString(s)}
		case 1:
			if n > -1<<52 && n < 1<<52 {
				return fpLit{value: value, text: s + ".0", json: s + ".0"}
			}
		}
	}
	return fpLit{value: value, text: s, json: s}
}

// Timestamps far from the data, still four-digit years in every zone.
var (
	fpYear1000 = time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	fpYear9000 = time.Date(9000, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
)

// fpTimestampText spells µs since the epoch as ISO-8601: with a "T" or a
// space, and for timestamptz with "Z", "+00:00" or another offset.
func fpTimestampText(r *rand.Rand, us int64, zoned bool) string {
	tm := time.UnixMicro(us).UTC()
	layout := "2006-01-02T15:04:05.000000"
	if r.IntN(2) == 0 {
		layout = "2006-01-02 15:04:05.000000"
	}
	if !zoned {
		return tm.Format(layout)
	}
	switch r.IntN(3) {
	case 0:
		return tm.Format(layout) + "Z"
	case 1:
		return tm.Format(layout) + "+00:00"
	}
	zone := time.FixedZone("", (r.IntN(27)-12)*3600+r.IntN(2)*1800)
	return tm.In(zone).Format(layout + "-07:00")
}
