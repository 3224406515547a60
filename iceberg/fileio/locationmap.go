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
// Apply is idempotent (applying it to its own output changes nothing); maps
// that would break this are refused. So a planner may remap a path for
// comparison and still hand either spelling to a remapping FileIO.
//
// The zero value maps nothing.
type LocationMap struct {
	rules []mapRule // longest source first
}

type mapRule struct{ from, to string }

// NewLocationMap builds a map from source prefixes to targets.
func NewLocationMap(prefixes map[string]string) (LocationMap, error) {
	var m LocationMap
	seen := make(map[string]string, len(prefixes))
	for from, to := range prefixes {
		src := normalizeSource(from)
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
		m.rules = append(m.rules, mapRule{from: src, to: dst})
	}
	sort.Slice(m.rules, func(i, j int) bool {
		a, b := m.rules[i].from, m.rules[j].from
		if len(a) != len(b) {
			return len(a) > len(b)
		}
		return a < b
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
		return path
	}
	p := stripDotSlash(path)
	for _, r := range m.rules {
		if underPrefix(p, r.from) {
			return joinRest(r.to, p[len(r.from):])
		}
	}
	return path
}

// Prefixes returns the normalized source → target pairs.
func (m LocationMap) Prefixes() map[string]string {
	out := make(map[string]string, len(m.rules))
	for _, r := range m.rules {
		out[r.from] = r.to
	}
	return out
}

// checkIdempotent refuses maps where a rewritten path could be rewritten
// again: a target must be a fixed point, and no source may lie beneath a
// target (which would catch some files under it).
func (m LocationMap) checkIdempotent() error {
	for _, r := range m.rules {
		if again := m.Apply(r.to); again != r.to {
			return fmt.Errorf("fileio: location map: target %q of %q would be rewritten again to %q", r.to, r.from, again)
		}
		for _, s := range m.rules {
			if s.from != r.to && underPrefix(s.from, r.to) {
				return fmt.Errorf("fileio: location map: source %q lies beneath the target %q of %q", s.from, r.to, r.from)
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

func normalizeSource(from string) string {
	return trimTrailingSlashes(stripDotSlash(from))
}

func normalizeTarget(to string) (string, error) {
	if to == "" {
		return "", errors.New("empty target")
	}
	if Scheme(to) != "" {
		return trimTrailingSlashes(to), nil
	}
	return filepath.Abs(to)
}
