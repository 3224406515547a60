package fileio

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// LocationMap rewrites locations that name another system (an HDFS cluster,
// a warehouse path on another machine, a path relative to another tool's
// working directory) to where the files are now.
//
// A source prefix matches on whole path elements: "/a/b" covers "/a/b" and
// "/a/b/c" but not "/a/bc". A trailing slash on either side is ignored, and
// a leading "./" on a source or a path is ignored when matching. The longest
// matching source wins. Relative local targets are made absolute against the
// working directory when the map is built.
//
// Every spelling of a local file is one path: sources, targets and the
// paths given to Apply are compared in their Canonical form, so the source
// "/old" covers "file:/old/a", "file:///old/a" and "file://localhost/old/a",
// and the source "file:///old" covers "/old/a". Apply returns canonical
// paths. A file: URI naming another host is refused as a source or target.
//
// A source "scheme://*/path" matches path under any authority of that
// scheme (hdfs://*/warehouse covers hdfs://nn:8020/warehouse/… and
// hdfs:///warehouse/…); a rule naming the authority wins over it.
//
// Apply is idempotent (applying it to its own output changes nothing); maps
// that would break this are refused. So a planner may remap a path for
// comparison and still hand either spelling to a remapping FileIO.
//
// The zero value maps nothing.
type LocationMap struct {
	rules []mapRule // longest source first
}

// mapRule rewrites paths under from to lie under to. A wildcard rule
// (source "scheme://*/path") keeps its scheme, and from is the path after
// the authority.
type mapRule struct {
	src, from, to string
	scheme        string // set for wildcard rules only
}

// wildcard reports whether the rule matches any authority.
func (r mapRule) wildcard() bool { return r.scheme != "" }

// match returns the part of a canonical path p beyond the rule's source.
func (r mapRule) match(p string) (string, bool) {
	if r.wildcard() {
		if Scheme(p) != r.scheme {
			return "", false
		}
		p = afterAuthority(p)
	}
	if !underPrefix(p, r.from) {
		return "", false
	}
	return p[len(r.from):], true
}

// sortLen is what rules are ordered by, longest first: the length of the
// source past its authority, so a wildcard rule competes with the rules of
// its scheme by how much of the path it names.
func (r mapRule) sortLen() int {
	if r.wildcard() {
		return len(r.from)
	}
	if Scheme(r.from) != "" && strings.HasPrefix(r.from[len(Scheme(r.from))+1:], "//") {
		return len(afterAuthority(r.from))
	}
	return len(r.from)
}

// afterAuthority is what follows "scheme://authority" in a location: ""
// or a path starting with "/". A location without an authority is
// returned whole.
func afterAuthority(location string) string {
	rest := location[len(Scheme(location))+1:]
	if !strings.HasPrefix(rest, "//") {
		return location
	}
	rest = rest[2:]
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		return rest[i:]
	}
	return ""
}

// NewLocationMap builds a map from source prefixes to targets.
func NewLocationMap(prefixes map[string]string) (LocationMap, error) {
	var m LocationMap
	seen := make(map[string]string, len(prefixes))
	for from, to := range prefixes {
		src, err := normalizeSource(from)
		if err != nil {
			return LocationMap{}, fmt.Errorf("fileio: location map: source prefix %q: %w", from, err)
		}
		if src == "" || src == "." {
			return LocationMap{}, fmt.Errorf("fileio: location map: source prefix %q is empty", from)
		}
		dst, err := normalizeTarget(to)
		if err != nil {
			return LocationMap{}, fmt.Errorf("fileio: location map: target of %q: %w", from, err)
		}
		if prev, dup := seen[src]; dup {
			if prev != dst {
				return LocationMap{}, fmt.Errorf("fileio: location map: source prefix %q is mapped to both %q and %q", src, prev, dst)
			}
			continue
		}
		seen[src] = dst
		m.rules = append(m.rules, newRule(src, dst))
	}
	sort.Slice(m.rules, func(i, j int) bool {
		a, b := m.rules[i], m.rules[j]
		if la, lb := a.sortLen(), b.sortLen(); la != lb {
			return la > lb
		}
		if a.wildcard() != b.wildcard() {
			return !a.wildcard()
		}
		return a.src < b.src
	})
	if err := m.checkIdempotent(); err != nil {
		return LocationMap{}, err
	}
	return m, nil
}

// Len is the number of prefixes in the map.
func (m LocationMap) Len() int { return len(m.rules) }

// Apply rewrites path by its longest matching source prefix, or returns it
// unchanged.
func (m LocationMap) Apply(path string) string {
	if len(m.rules) == 0 {
		return Canonical(path)
	}
	if r, rest, ok := m.rule(path); ok {
		return joinRest(r.to, rest)
	}
	return Canonical(path)
}

// Covers reports whether a rule of the map rewrites path.
func (m LocationMap) Covers(path string) bool {
	_, _, ok := m.rule(path)
	return ok
}

// rule is the rule that rewrites path, the longest source first, and the
// part of path beyond its source.
func (m LocationMap) rule(path string) (mapRule, string, bool) {
	p := Canonical(stripDotSlash(path))
	for _, r := range m.rules {
		if rest, ok := r.match(p); ok {
			return r, rest, true
		}
	}
	return mapRule{}, "", false
}

// Prefixes returns the normalized source → target pairs.
func (m LocationMap) Prefixes() map[string]string {
	out := make(map[string]string, len(m.rules))
	for _, r := range m.rules {
		out[r.src] = r.to
	}
	return out
}

// checkIdempotent refuses maps where a rewritten path could be rewritten
// again: a target must be a fixed point, and no source may lie beneath a
// target (which would catch some files under it).
func (m LocationMap) checkIdempotent() error {
	for _, r := range m.rules {
		if again := m.Apply(r.to); again != r.to {
			return fmt.Errorf("fileio: location map: target %q of %q would be rewritten again to %q", r.to, r.src, again)
		}
		for _, s := range m.rules {
			if !s.wildcard() && s.from != r.to && underPrefix(s.from, r.to) ||
				s.wildcard() && Scheme(r.to) == s.scheme && underPrefix(s.from, afterAuthority(r.to)) {
				return fmt.Errorf("fileio: location map: source %q lies beneath the target %q of %q", s.src, r.to, r.src)
			}
		}
	}
	return nil
}

// underPrefix reports whether path is prefix or lies beneath it.
func underPrefix(path, prefix string) bool {
	if !strings.HasPrefix(path, prefix) {
		return false
	}
	return len(path) == len(prefix) || strings.HasSuffix(prefix, "/") || path[len(prefix)] == '/'
}

func joinRest(to, rest string) string {
	switch {
	case rest == "":
		return to
	case strings.HasSuffix(to, "/") && rest[0] == '/':
		return to + rest[1:]
	case !strings.HasSuffix(to, "/") && rest[0] != '/':
		return to + "/" + rest
	default:
		return to + rest
	}
}

func stripDotSlash(p string) string {
	for strings.HasPrefix(p, "./") {
		p = strings.TrimLeft(p[2:], "/")
	}
	return p
}

// newRule makes the rule of a normalized source.
func newRule(src, to string) mapRule {
	if scheme, path, ok := wildcardSource(src); ok {
		return mapRule{src: src, from: path, to: to, scheme: scheme}
	}
	return mapRule{src: src, from: src, to: to}
}

// wildcardSource splits "scheme://*/path" into its scheme and path.
func wildcardSource(src string) (scheme, path string, ok bool) {
	scheme = Scheme(src)
	if scheme == "" {
		return "", "", false
	}
	rest, ok := strings.CutPrefix(src[len(scheme)+1:], "//*")
	if !ok || rest != "" && rest[0] != '/' {
		return "", "", false
	}
	return scheme, rest, true
}

// normalizeSource is a source in the spelling paths are matched in. A
// file: URI naming a local path becomes that path; one whose "host" is
// the first element of a relative path (file://wh/default.db/t, as
// DuckDB, GlareDB and BigQuery write) is matched as written, which is
// how such a table spells every path in it.
func normalizeSource(from string) (string, error) {
	src := trimTrailingSlashes(stripDotSlash(from))
	if Scheme(src) == "file" {
		if _, ok := fileURIRelative(src); ok {
			return src, nil
		}
		p, err := fileURIPath(src)
		if err != nil {
			return "", err
		}
		src = trimTrailingSlashes(p)
	}
	return src, nil
}

func normalizeTarget(to string) (string, error) {
	if to == "" {
		return "", errors.New("empty target")
	}
	switch Scheme(to) {
	case "":
	case "file":
		p, err := fileURIPath(to)
		if err != nil {
			return "", err
		}
		to = p
	default:
		if _, _, wild := wildcardSource(to); wild {
			return "", errors.New("a target cannot name any authority (*)")
		}
		return trimTrailingSlashes(to), nil
	}
	return filepath.Abs(to)
}
