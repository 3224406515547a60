package scan

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
	"github.com/floedb/floe/internal/testtable"
)

// Filters on the real fixture tables (issue 5's "must show" list), with
// answers from the engines' own tests (testdata/fixtures/INDEX.md, and
// Impala's iceberg-query.test for the queries INDEX.md only mentions) or,
// where those give none, worked out here from the table's unfiltered rows.
// Each filter runs on one thread and on several, so the answer cannot
// depend on how tasks are split.

// ffCase is one filter and the rows it must return, as impalaValue spells
// them and in any order.
type ffCase struct {
	filter string // text form, or REST JSON when it starts with {
	want   []string
}

func (c ffCase) raw() expr.Expr { return textFilter(c.filter) }

func ffRun(t *testing.T, fixture string, cols []string, cases []ffCase) {
	t.Helper()
	for _, c := range cases {
		for _, threads := range []int{1, 4} {
			_, rows := scanFixture(t, fixture, Options{Columns: cols, Filter: c.raw(), Threads: threads})
			expectRows(t, fmt.Sprintf("%s, %d thread(s): %s", fixture, threads, c.filter), sortedRows(rows), c.want...)
		}
	}
}

// ffWhere picks the rows of an unfiltered scan that keep says to keep.
func ffWhere(rows [][]string, keep func(r []string) bool) []string {
	var out []string
	for _, r := range rows {
		if keep(r) {
			out = append(out, strings.Join(r, ","))
		}
	}
	return out
}

func ffInt(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(err)
	}
	return n
}

// impala_iceberg_partitioned: Spark wrote 20 one-row files partitioned by
// hour(event_time) and identity(action).
func TestFilterFixtureImpalaPartitioned(t *testing.T) {
	const fx = "impala_iceberg_partitioned"
	cols := []string{"id", "user", "action", "event_time"}
	_, all := scanFixture(t, fx, Options{Columns: cols})
	if len(all) != 20 {
		t.Fatalf("%d rows, want 20 (INDEX.md)", len(all))
	}
	id := func(r []string) int { return ffInt(r[0]) }
	// Impala's iceberg-query.test, SET TIMEZONE=UTC.
	after9 := []string{
		"2,'Lisa','download',2020-01-01 10:00:00", "5,'Lisa','download',2020-01-01 10:00:00",
		"7,'Lisa','download',2020-01-01 10:00:00", "8,'Lisa','download',2020-01-01 10:00:00",
		"14,'Lisa','download',2020-01-01 10:00:00", "16,'Lisa','download',2020-01-01 10:00:00",
	}
	ffRun(t, fx, cols, []ffCase{
		{"event_time > '2020-01-01 09:00:00'", after9},
		{`{"type":"gt","term":"event_time","value":"2020-01-01T09:00:00+00:00"}`, after9},
		// The same instant in another zone.
		{"event_time > '2020-01-01T10:00:00+01:00'", after9},
	})

	// Counts from INDEX.md; rows from the unfiltered scan.
	counts := []struct {
		filter string
		keep   func(r []string) bool
		n      int
	}{
		{"id > 10", func(r []string) bool { return id(r) > 10 }, 10},
		{"action <> 'click'", func(r []string) bool { return r[2] != "'click'" }, 14},
		{"action = 'click'", func(r []string) bool { return r[2] == "'click'" }, 6},
		{"not (action = 'click')", func(r []string) bool { return r[2] != "'click'" }, 14},
		// SHOW PARTITIONS: hour 438296 (08:00) holds the 8 'view' rows,
		// 438297 (09:00) the 6 'click' rows.
		{"event_time < '2020-01-01 09:00:00+00:00'", func(r []string) bool { return r[2] == "'view'" }, 8},
		{"event_time >= '2020-01-01 09:00:00Z' and event_time < '2020-01-01 10:00:00Z'", func(r []string) bool { return r[2] == "'click'" }, 6},
		{"event_time >= '2020-01-01 08:00:00' and action in ('view', 'download')", func(r []string) bool { return r[2] != "'click'" }, 14},
	}
	var cases []ffCase
	for _, c := range counts {
		want := ffWhere(all, c.keep)
		if len(want) != c.n {
			t.Fatalf("%s: the unfiltered rows give %d, INDEX.md says %d", c.filter, len(want), c.n)
		}
		cases = append(cases, ffCase{c.filter, want})
	}
	// Mixed filters on the partition columns and on id, whose only
	// pruning help is the files' bounds.
	cases = append(cases,
		ffCase{"action = 'view' and id > 10", ffWhere(all, func(r []string) bool { return r[2] == "'view'" && id(r) > 10 })},
		ffCase{"event_time < '2020-01-01 09:00:00+00:00' or id = 3", ffWhere(all, func(r []string) bool { return r[2] == "'view'" || id(r) == 3 })},
		ffCase{"action in ('click', 'download') and not (id >= 10)", ffWhere(all, func(r []string) bool { return r[2] != "'view'" && id(r) < 10 })},
		ffCase{"action like 'd%' or (user = 'Alex' and id in (1, 4, 19, 99))", ffWhere(all, func(r []string) bool {
			return r[2] == "'download'" || r[1] == "'Alex'" && (id(r) == 1 || id(r) == 4 || id(r) == 19)
		})},
		ffCase{"id >= 5 and id <= 7", ffWhere(all, func(r []string) bool { return id(r) >= 5 && id(r) <= 7 })},
		ffCase{"id > 20 or action = 'none'", nil},
		ffCase{`{"type":"and","left":{"type":"in","term":"action","values":["view","click"]},"right":{"type":"lt","term":"id","value":6}}`,
			ffWhere(all, func(r []string) bool { return r[2] != "'download'" && id(r) < 6 })},
	)
	ffRun(t, fx, cols, cases)
}

// impala_test_default_part: j was added with initial-default -1, so the
// rows of files written before it (unpartitioned spec 0) read j = -1;
// later files are partitioned by identity(j). INDEX.md: all rows are
// 1,-1 2,-1 3,5 4,10 5,NULL.
func TestFilterFixtureDefaultedColumn(t *testing.T) {
	ffRun(t, "impala_test_default_part", []string{"i", "j"}, []ffCase{
		{"j = -1", []string{"1,-1", "2,-1"}},
		{"j = 5", []string{"3,5"}},
		{"j > 0", []string{"3,5", "4,10"}},
		{"j < 0", []string{"1,-1", "2,-1"}},
		{"j is null", []string{"5,NULL"}},
		{"j is not null", []string{"1,-1", "2,-1", "3,5", "4,10"}},
		{"j != -1", []string{"3,5", "4,10"}},
		{"not (j = -1)", []string{"3,5", "4,10"}},
		{"not (j < 0)", []string{"3,5", "4,10"}},
		{"j in (-1, 10)", []string{"1,-1", "2,-1", "4,10"}},
		{"j not in (5)", []string{"1,-1", "2,-1", "4,10"}},
		{"j <= -1 or i = 5", []string{"1,-1", "2,-1", "5,NULL"}},
		{"j = -1 and i > 1", []string{"2,-1"}},
		{`{"type":"eq","term":"j","value":-1}`, []string{"1,-1", "2,-1"}},
		{`{"type":"not","child":{"type":"is-null","term":"j"}}`, []string{"1,-1", "2,-1", "3,5", "4,10"}},
	})
}

// duckdb_uuid: a required uuid column in two files of five rows (INDEX.md
// lists the ten values). Byte order of uuids is the order of their
// lowercase hex spelling.
func TestFilterFixtureUUID(t *testing.T) {
	all := []string{
		"8dc314d8-3fd4-4b3a-8bf5-c008f363c2e4", "a217c09f-06fa-4e91-8315-ff44753c4a54", "abd6f939-9b99-4e1d-9cda-0dc8ce60a161",
		"e6218567-354b-4a9c-8cd7-3d4b6a2470f8", "f9f28465-51cf-45f1-8985-e01d9a82253c", "1571effb-facd-42a3-90e9-0af522e9b6c2",
		"160a53fe-3d8b-443d-bd36-ad66287f585a", "37afa09a-f496-48a8-89a9-61ea7ccd85d5", "3ef257b8-e9c6-4c53-9c22-973729e1043f",
		"7fae299c-cf05-4777-9b42-57a52e1415ed",
	}
	where := func(keep func(u string) bool) []string {
		var out []string
		for _, u := range all {
			if keep(u) {
				out = append(out, u)
			}
		}
		return out
	}
	const one = "1571effb-facd-42a3-90e9-0af522e9b6c2"
	ffRun(t, "duckdb_uuid", nil, []ffCase{
		{"uuid = '" + one + "'", []string{one}},
		{`{"type":"eq","term":"uuid","value":"` + strings.ToUpper(one) + `"}`, []string{one}},
		{"uuid != '" + one + "'", where(func(u string) bool { return u != one })},
		{"uuid in ('" + one + "', 'f9f28465-51cf-45f1-8985-e01d9a82253c')", []string{one, "f9f28465-51cf-45f1-8985-e01d9a82253c"}},
		// Exactly the rows of one file, the other's bounds say so.
		{"uuid >= '80000000-0000-0000-0000-000000000000'", where(func(u string) bool { return u >= "8" })},
		{"uuid < '80000000-0000-0000-0000-000000000000'", where(func(u string) bool { return u < "8" })},
		{"uuid < '160a53fe-3d8b-443d-bd36-ad66287f585a'", []string{one}},
		{"uuid > 'f9f28465-51cf-45f1-8985-e01d9a82253c'", nil},
		{"uuid is null", nil},
		{"uuid is not null", all},
	})
}

// impala_iceberg_timestamptz_part: hour(ts) partitions, pre-1970 values.
// Answers are Impala's iceberg-query.test; its queries in Europe/Budapest
// are written here with that zone's offset on the day.
func TestFilterFixtureTimestamptz(t *testing.T) {
	ffRun(t, "impala_iceberg_timestamptz_part", []string{"i", "ts"}, []ffCase{
		{"ts = '1969-01-01 00:00:00'", []string{"-2,1969-01-01 00:00:00"}},
		{"ts = '1969-01-01 00:15:00'", []string{"-1,1969-01-01 00:15:00"}},
		{"ts = '2021-10-31 00:15:00'", []string{"0,2021-10-31 00:15:00"}},
		{"ts = '2021-10-31 01:15:00'", []string{"1,2021-10-31 01:15:00"}},
		{"ts = '2021-01-10 11:00:00'", []string{"2,2021-01-10 11:00:00"}},
		{"ts = '2022-04-10 22:04:00'", []string{"3,2022-04-10 22:04:00"}},
		{"ts = '2022-04-11 10:04:55'", []string{"4,2022-04-11 10:04:55"}},
		{"ts < '2021-10-31 01:15:00'", []string{"-2,1969-01-01 00:00:00", "-1,1969-01-01 00:15:00", "0,2021-10-31 00:15:00", "2,2021-01-10 11:00:00"}},
		{"ts > '1969-01-01 00:00:00'", []string{"-1,1969-01-01 00:15:00", "0,2021-10-31 00:15:00", "1,2021-10-31 01:15:00",
			"2,2021-01-10 11:00:00", "3,2022-04-10 22:04:00", "4,2022-04-11 10:04:55"}},
		{"ts > '1969-01-01 00:15:00' and ts < '2021-10-31 01:15:00'", []string{"0,2021-10-31 00:15:00", "2,2021-01-10 11:00:00"}},
		{"ts >= '1969-01-01 00:15:00' and ts <= '2021-10-31 01:15:00'", []string{"-1,1969-01-01 00:15:00", "0,2021-10-31 00:15:00",
			"1,2021-10-31 01:15:00", "2,2021-01-10 11:00:00"}},
		// Europe/Budapest: CET (+01:00) in winter, CEST (+02:00) in summer;
		// 2021-10-31 02:15 happened twice, once in each.
		{"ts = '1969-01-01 01:00:00+01:00'", []string{"-2,1969-01-01 00:00:00"}},
		{"ts = '2022-04-11 00:04:00+02:00'", []string{"3,2022-04-10 22:04:00"}},
		{"ts = '2021-10-31 02:15:00+02:00' or ts = '2021-10-31 02:15:00+01:00'", []string{"0,2021-10-31 00:15:00", "1,2021-10-31 01:15:00"}},
		{"ts < '2021-10-31 02:15:00+02:00'", []string{"-2,1969-01-01 00:00:00", "-1,1969-01-01 00:15:00", "2,2021-01-10 11:00:00"}},
		{`{"type":"lt","term":"ts","value":"1970-01-01T00:00:00Z"}`, []string{"-2,1969-01-01 00:00:00", "-1,1969-01-01 00:15:00"}},
		{"ts in ('1969-01-01 00:15:00+00:00', '2022-04-11 10:04:55+00:00', '2000-01-01 00:00:00+00:00')", []string{"-1,1969-01-01 00:15:00", "4,2022-04-11 10:04:55"}},
		{"not (ts >= '1969-01-01 00:15:00+00:00')", []string{"-2,1969-01-01 00:00:00"}},
	})
}

// ffMetrics runs a filtered scan of a table to the end and returns its
// rows (impalaValue spelling) and metrics.
func ffMetrics(t *testing.T, tbl *table.Table, opts Options) ([]string, Metrics) {
	t.Helper()
	ctx := context.Background()
	s, err := New(ctx, tbl, opts)
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rr, err := s.Reader(ctx, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var rows []string
	for rr.Next() {
		rec := rr.RecordBatch()
		for r := 0; r < int(rec.NumRows()); r++ {
			parts := make([]string, rec.NumCols())
			for c := range parts {
				parts[c] = impalaValue(rec.Column(c), r)
			}
			rows = append(rows, strings.Join(parts, ","))
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(rows)
	return rows, s.Metrics()
}

func ffOpen(t *testing.T, name string) *table.Table {
	t.Helper()
	fx, err := fixtures.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.Open(context.Background(), fx.Dir, table.Options{LocationMap: fx.LocationMap})
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// TestFilterPruningMetrics asserts what pruning must skip, where the
// answer is certain from partition values, manifest bounds and Parquet
// statistics alone. It is expected to fail until pruning lands: before
// that, nothing is skipped.
func TestFilterPruningMetrics(t *testing.T) {
	// Files in a manifest skipped as a whole are not counted in
	// FilesSkipped, so FilesPlanned is what is asserted, FilesSkipped only
	// where the table has one manifest.
	type expect struct {
		filesPlanned, rowGroupsRead, filesSkipped int64 // -1: not asserted
		maxFilesPlanned                           int64
	}
	cases := []struct {
		fixture, filter string
		rows            int
		want            expect
	}{
		// INDEX.md: "Pruning skips one 5-row file."
		{"duckdb_uuid", "uuid = '1571effb-facd-42a3-90e9-0af522e9b6c2'", 1, expect{1, 1, 1, 1}},
		{"duckdb_uuid", "uuid >= '80000000-0000-0000-0000-000000000000'", 5, expect{1, 1, 1, 1}},
		// identity(action): 14 of the 20 one-row files are other actions.
		{"impala_iceberg_partitioned", "action = 'click'", 6, expect{6, 6, -1, 6}},
		// hour(event_time) rules out the 8 files of 08:00; the 6 click
		// files hold only 09:00:00, which their upper bounds show is not
		// after 09:00:00.
		{"impala_iceberg_partitioned", "event_time > '2020-01-01 09:00:00'", 6, expect{6, 6, -1, 6}},
		// Only the id bounds help.
		{"impala_iceberg_partitioned", "id > 10", 10, expect{10, 10, -1, 10}},
		// Impala's profile for these reads 1 and 3 row groups.
		{"impala_iceberg_timestamptz_part", "ts = '1969-01-01 00:00:00'", 1, expect{1, 1, -1, 1}},
		{"impala_iceberg_timestamptz_part", "ts < '2021-10-31 01:15:00'", 4, expect{3, 3, -1, 3}},
		// identity(j) rules out the j=10 and j=null files; the two files
		// from before j existed may go too (their j is the default -1).
		{"impala_test_default_part", "j = 5", 1, expect{-1, -1, -1, 3}},
	}
	for _, c := range cases {
		tbl := ffOpen(t, c.fixture)
		for _, threads := range []int{1, 4} {
			name := fmt.Sprintf("%s, %d thread(s): %s", c.fixture, threads, c.filter)
			rows, m := ffMetrics(t, tbl, Options{Filter: textFilter(c.filter), Threads: threads})
			if len(rows) != c.rows {
				t.Errorf("%s: %d rows, want %d", name, len(rows), c.rows)
			}
			if m.RowsReturned != int64(c.rows) {
				t.Errorf("%s: metrics say %d rows returned, want %d", name, m.RowsReturned, c.rows)
			}
			check := func(what string, got, want int64) {
				if want >= 0 && got != want {
					t.Errorf("%s: %s = %d, want %d (metrics %+v)", name, what, got, want, m)
				}
			}
			check("FilesPlanned", m.FilesPlanned, c.want.filesPlanned)
			check("RowGroupsRead", m.RowGroupsRead, c.want.rowGroupsRead)
			check("FilesSkipped", m.FilesSkipped, c.want.filesSkipped)
			if m.FilesPlanned > c.want.maxFilesPlanned {
				t.Errorf("%s: FilesPlanned = %d, want at most %d (metrics %+v)", name, m.FilesPlanned, c.want.maxFilesPlanned, m)
			}
		}
	}
	ffClusteredPruning(t)
}

// ffClusteredPruning filters a generated table on its clustered column l
// (ascending through the files) with l < x, x inside one row group of the
// third file. Files, row groups and pages whose l values are all at least
// x (or null) cannot match; the counts of those are known from the rows.
func ffClusteredPruning(t *testing.T) {
	rows := testtable.RandomRows(7, 4000)
	built, err := testtable.Build(t.TempDir(), testtable.Options{Rows: rows, RowsPerFile: 1000, RowsPerRowGroup: 250, RowsPerPage: 25, Manifests: 1})
	if err != nil {
		t.Fatal(err)
	}
	const lCol = testtable.IDLong - 1
	third := built.Files[2]
	// x is the l of a row in the middle of the third file's second row
	// group, so that group's later pages hold only larger values.
	var x int64
	for k := 250 + 125; ; k++ {
		if v := rows[third.Rows[k]][lCol]; v != nil {
			x = v.(int64)
			break
		}
	}
	matches := func(r int) bool { v := rows[r][lCol]; return v != nil && v.(int64) < x }
	var wantFilesSkipped, wantGroupsSkipped, wantRows int64
	for _, f := range built.Files {
		anyFile := false
		next := 0
		var groupsSkippable int64
		for _, n := range f.RowGroups {
			anyGroup := false
			for _, r := range f.Rows[next : next+n] {
				if matches(r) {
					anyGroup = true
					wantRows++
				}
			}
			if !anyGroup {
				groupsSkippable++
			}
			anyFile = anyFile || anyGroup
			next += n
		}
		if !anyFile {
			wantFilesSkipped++
		} else {
			wantGroupsSkipped += groupsSkippable
		}
	}
	if wantFilesSkipped == 0 || wantGroupsSkipped == 0 {
		t.Fatalf("the generated table does not make the case: %d files, %d row groups skippable", wantFilesSkipped, wantGroupsSkipped)
	}
	tbl, err := table.Open(context.Background(), built.MetadataPath, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	filter := fmt.Sprintf("l < %d", x)
	got, m := ffMetrics(t, tbl, Options{Filter: textFilter(filter), Columns: []string{"id"}, Threads: 1})
	if int64(len(got)) != wantRows {
		t.Fatalf("%s: %d rows, want %d", filter, len(got), wantRows)
	}
	if m.FilesSkipped != wantFilesSkipped {
		t.Errorf("%s: FilesSkipped = %d, want %d (metrics %+v)", filter, m.FilesSkipped, wantFilesSkipped, m)
	}
	if m.RowGroupsSkipped < wantGroupsSkipped {
		t.Errorf("%s: RowGroupsSkipped = %d, want at least %d (metrics %+v)", filter, m.RowGroupsSkipped, wantGroupsSkipped, m)
	}
	// The second row group of the third file is half below x: its later
	// pages of l (and of id, read only for matching rows) need no decoding.
	if m.PagesSkipped == 0 || m.BytesSkipped == 0 {
		t.Errorf("%s: no pages skipped (metrics %+v)", filter, m)
	}
	if m.BytesRead <= 0 || m.BytesRead >= built.Bytes {
		t.Errorf("%s: BytesRead = %d of the table's %d (metrics %+v)", filter, m.BytesRead, built.Bytes, m)
	}
}
