package iceberg

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
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
