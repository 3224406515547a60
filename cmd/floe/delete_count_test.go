package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var deletedRowsLine = regexp.MustCompile(`deleted (\d+) rows`)

// The rows floe delete says it deleted are the rows the table lost: a
// delete by one mode after one by the other on the same files, position
// delete files shared by several data files (granularity partition),
// deletion vectors, and files every row of which the filter selects but
// some of which were deleted before. What the table lost is counted by
// scanning it before and after.
func TestDeleteReportsExactlyTheRowsDeleted(t *testing.T) {
	const mor, cow = "merge-on-read", "copy-on-write"
	cases := []struct {
		version int
		props   []string
		modes   [2]string
	}{
		{2, nil, [2]string{mor, cow}},
		{2, nil, [2]string{cow, mor}},
		{2, nil, [2]string{mor, mor}},
		{2, []string{"write.delete.granularity=partition"}, [2]string{mor, cow}},
		{2, []string{"write.delete.granularity=partition"}, [2]string{mor, mor}},
		{3, nil, [2]string{mor, cow}},
		{3, nil, [2]string{cow, mor}},
		{3, nil, [2]string{mor, mor}},
	}
	for _, c := range cases {
		name := fmt.Sprintf("v%d-%s-then-%s-%s", c.version, c.modes[0], c.modes[1], strings.Join(c.props, ","))
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			schema := filepath.Join(dir, "schema.json")
			writeTestFile(t, schema, `{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"i","required":false,"type":"long"}]}`)
			loc := filepath.Join(dir, "t")
			args := []string{"create", loc, "--schema", schema, "--format-version", strconv.Itoa(c.version)}
			for _, p := range c.props {
				args = append(args, "--property", p)
			}
			mustRun(t, args...)
			// Two data files of 12 rows each.
			for _, first := range []int{1, 101} {
				var lines strings.Builder
				for i := first; i < first+12; i++ {
					fmt.Fprintf(&lines, "{\"i\": %d}\n", i)
				}
				in := filepath.Join(dir, fmt.Sprintf("rows%d.jsonl", first))
				if err := os.WriteFile(in, []byte(lines.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				mustRun(t, "append", loc, in)
			}
			steps := []struct {
				filter string
				mode   string
			}{
				{"i <= 3 or (i >= 101 and i <= 102)", c.modes[0]}, // some rows of both files
				{"i <= 6 or i = 112", c.modes[1]},                 // again, rows deleted before among those selected
				{"i <= 9", c.modes[0]},
				{"i > 0", c.modes[1]}, // every file whole, some of its rows deleted before
			}
			for _, s := range steps {
				before := len(scanRows(t, loc))
				out := mustRun(t, "delete", loc, s.filter, "--mode", s.mode)
				after := len(scanRows(t, loc))
				m := deletedRowsLine.FindStringSubmatch(out)
				if m == nil {
					t.Fatalf("delete %q (%s): said %q", s.filter, s.mode, out)
				}
				if got, want := m[1], strconv.Itoa(before-after); got != want {
					t.Errorf("delete %q (%s): said %s rows, the table lost %s", s.filter, s.mode, got, want)
				}
			}
		})
	}
}
