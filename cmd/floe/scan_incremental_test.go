package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/floedb/floe/internal/fixtures"
)

// scan --from-snapshot A [--to-snapshot B] reads the rows the appends
// after A (up to B) added: on Impala's table of four appends then two
// overwrites, the full scan at the last append less the one at A; the
// overwrites after it add nothing. A bad id is refused, naming it.
func TestScanIncrementalAppends(t *testing.T) {
	fx, _ := fixtures.Get("impala_iceberg_v2_positional_not_all_data_files_have_delete_files")
	const s1, s2, s4 = "4363979609026842966", "5762682948883272650", "7490459762454857930"
	rows := func(args ...string) []string {
		t.Helper()
		var out []string
		for _, r := range scanRows(t, append(append([]string{fx.Dir}, mapArgs(fx)...), args...)...) {
			out = append(out, fmt.Sprint(r["i"], r["s"]))
		}
		slices.Sort(out)
		return out
	}
	minus := func(all, some []string) []string {
		return slices.DeleteFunc(slices.Clone(all), func(r string) bool { return slices.Contains(some, r) })
	}
	at1, at2, at4 := rows("--snapshot", s1), rows("--snapshot", s2), rows("--snapshot", s4)
	if got, want := rows("--from-snapshot", s1), minus(at4, at1); !slices.Equal(got, want) || len(got) != 7 {
		t.Errorf("after %s: %v, want %v", s1, got, want)
	}
	if got, want := rows("--from-snapshot", s1, "--to-snapshot", s2), minus(at2, at1); !slices.Equal(got, want) || len(got) != 3 {
		t.Errorf("after %s to %s: %v, want %v", s1, s2, got, want)
	}
	if got := rows("--from-snapshot", s4); len(got) != 0 {
		t.Errorf("after the last append: %v, want nothing", got)
	}
	for _, bad := range [][]string{{"--from-snapshot", "42"}, {"--from-snapshot", s2, "--to-snapshot", s1}, {"--from-snapshot", "x"}} {
		status, _, errOut := runCLI(t, append(append([]string{"scan", fx.Dir}, mapArgs(fx)...), bad...)...)
		if status == 0 || !strings.Contains(errOut, bad[1]) {
			t.Errorf("%v: status %d, %q; want a refusal naming %s", bad, status, errOut, bad[1])
		}
	}
}
