package iceberg

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/floedb/floe/errkind"
)

// CloseNames suggests, best first, up to five dotted column names (quoted)
// a mistyped name may have meant: within a small edit distance, ignoring
// case, or containing it or contained in it.
func (schema *Schema) CloseNames(name string) []string {
	type candidate struct {
		name string
		dist int
	}
	var found []candidate
	want := strings.ToLower(name)
	var walk func(prefix string, fields []NestedField)
	walk = func(prefix string, fields []NestedField) {
		for _, f := range fields {
			full := prefix + f.Name
			lower := strings.ToLower(full)
			d := editDistance(want, lower)
			if d <= max(2, len(want)/3) || strings.Contains(lower, want) || strings.Contains(want, lower) {
				found = append(found, candidate{full, d})
			}
			if st, ok := f.Type.(*StructType); ok {
				walk(full+".", st.Fields)
			}
		}
	}
	walk("", schema.Fields)
	slices.SortFunc(found, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(a.dist, b.dist), strings.Compare(a.name, b.name))
	})
	var out []string
	for i := 0; i < len(found) && i < 5; i++ {
		out = append(out, fmt.Sprintf("%q", found[i].name))
	}
	return out
}

func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return max(len(a), len(b))
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// ClosestName is the name among names nearest to name, by edit distance
// ignoring case (ties go to the earlier name), "" when names is empty. It
// is the one "did you mean" every input form's refusal of an unknown
// column names: the nearest column is always worth showing, however far.
func ClosestName(name string, names []string) string {
	best, bestDist := "", 0
	want := strings.ToLower(name)
	for _, n := range names {
		d := editDistance(want, strings.ToLower(n))
		if best == "" || d < bestDist {
			best, bestDist = n, d
		}
	}
	return best
}

// UnknownColumnError is input naming a column (a dotted path for a nested
// one) that the table's schema does not have; Closest is the sibling
// column nearest to it (ClosestName, dotted like Column), "" when its
// struct has none.
type UnknownColumnError struct {
	Column  string
	Closest string
}

func (e *UnknownColumnError) Error() string {
	msg := fmt.Sprintf("input column %q is not in the table schema", e.Column)
	if e.Closest != "" {
		msg += fmt.Sprintf("; did you mean %q?", e.Closest)
	}
	return msg + " (a write adds columns only when asked to evolve the schema)"
}

// Unwrap gives the error its kind: the input does not fit the table.
func (e *UnknownColumnError) Unwrap() error { return errkind.InvalidArgument }

// UnknownColumn is the error for input column name under prefix (the
// parent's dotted path and a dot, "" at the top level) among siblings, the
// names its struct in the table has.
func UnknownColumn(prefix, name string, siblings []string) error {
	e := &UnknownColumnError{Column: prefix + name}
	if c := ClosestName(name, siblings); c != "" {
		e.Closest = prefix + c
	}
	return e
}
