package fileio

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// spellings are the map sources naming location under every spelling the
// writers of one table use for it. Hadoop-world engines write the same
// file as /wh/t/f and hdfs://namenode:port/wh/t/f (Impala's position delete
// files do, INDEX.md quirk 0), so a plain absolute path and an hdfs:// URI
// stand for the path under any HDFS authority; s3:// and s3a:// name the
// same object; a relative path p/x and file://p/x (DuckDB's, GlareDB's
// and BigQuery's spelling of it) are one. Other locations have their own
// spelling only.
func spellings(location string) []string {
	c := trimTrailingSlashes(Canonical(stripDotSlash(location)))
	if rel, ok := fileURIRelative(c); ok {
		return []string{c, rel}
	}
	switch scheme := Scheme(c); scheme {
	case "":
		if strings.HasPrefix(c, "/") {
			return []string{c, "hdfs://*" + c}
		}
		return []string{c, "file://" + c}
	case "hdfs":
		if p := afterAuthority(c); p != c && p != "" {
			return []string{p, "hdfs://*" + p}
		}
		return []string{c}
	case "s3", "s3a":
		rest := c[len(scheme):]
		return []string{"s3" + rest, "s3a" + rest}
	default:
		return []string{c}
	}
}

// Relocated returns m with every spelling of location that m leaves alone
// mapped onto root: a table whose metadata records location was found at
// root. Rules already in m win wherever they apply, so an explicit map
// keeps precedence over what relocation guesses. changed is false when m
// already maps every spelling.
func (m LocationMap) Relocated(location, root string) (moved LocationMap, changed bool, err error) {
	prefixes := m.Prefixes()
	for _, sp := range spellings(location) {
		if m.shadows(sp) {
			continue
		}
		prefixes[sp] = root
		changed = true
	}
	if !changed {
		return m, false, nil
	}
	moved, err = NewLocationMap(prefixes)
	if err != nil {
		return m, false, err
	}
	return moved, true, nil
}

// shadows reports whether a rule of m already applies to paths under the
// source src: for a plain source, a rule covering it; for a wildcard one,
// any rule of its scheme on a path related to its own, whose precedence a
// wildcard must not take.
func (m LocationMap) shadows(src string) bool {
	scheme, path, wild := wildcardSource(src)
	if !wild {
		return m.Covers(src)
	}
	for _, r := range m.rules {
		var rp string
		switch {
		case r.wildcard() && r.scheme == scheme:
			rp = r.from
		case !r.wildcard() && Scheme(r.from) == scheme:
			rp = afterAuthority(r.from)
		default:
			continue
		}
		if underPrefix(path, rp) || underPrefix(rp, path) {
			return true
		}
	}
	return false
}

// RecordedPrefix reports whether path lies under location in any of its
// spellings, and returns the leading part of path that spells location:
// for the location /wh/t, hdfs://nn/wh/t of hdfs://nn/wh/t/data/f.
func RecordedPrefix(path, location string) (string, bool) {
	p := Canonical(stripDotSlash(path))
	for _, sp := range spellings(location) {
		if rest, ok := newRule(sp, "").match(p); ok {
			return trimTrailingSlashes(p[:len(p)-len(rest)]), true
		}
	}
	return "", false
}

// WithMissingHint wraps files so that an error for a path that does not
// exist, or whose scheme no FileIO serves, ends with hint(path) (when not
// empty): what the user can do about it. The error keeps its kind.
func WithMissingHint(files FileIO, hint func(path string) string) FileIO {
	return &hinting{inner: files, hint: hint}
}

type hinting struct {
	inner FileIO
	hint  func(string) string
}

func (h *hinting) wrap(path string, err error) error {
	if err == nil || !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, ErrUnsupportedScheme) {
		return err
	}
	if s := h.hint(path); s != "" {
		return fmt.Errorf("%w; %s", err, s)
	}
	return err
}

// Remap passes on the inner FileIO's remapping.
func (h *hinting) Remap(path string) string { return Remap(h.inner, path) }

func (h *hinting) OpenSized(ctx context.Context, path string, size int64) (File, error) {
	f, err := OpenSized(ctx, h.inner, path, size)
	return f, h.wrap(path, err)
}

func (h *hinting) Open(ctx context.Context, path string) (File, error) {
	f, err := h.inner.Open(ctx, path)
	return f, h.wrap(path, err)
}

func (h *hinting) ReadFile(ctx context.Context, path string) ([]byte, error) {
	data, err := h.inner.ReadFile(ctx, path)
	return data, h.wrap(path, err)
}

func (h *hinting) Stat(ctx context.Context, path string) (FileInfo, error) {
	info, err := h.inner.Stat(ctx, path)
	return info, h.wrap(path, err)
}

func (h *hinting) Exists(ctx context.Context, path string) (bool, error) {
	ok, err := h.inner.Exists(ctx, path)
	return ok, h.wrap(path, err)
}

func (h *hinting) WriteFile(ctx context.Context, path string, data []byte) error {
	return h.wrap(path, h.inner.WriteFile(ctx, path, data))
}

func (h *hinting) WriteFileIfAbsent(ctx context.Context, path string, data []byte) error {
	return h.wrap(path, h.inner.WriteFileIfAbsent(ctx, path, data))
}

func (h *hinting) Create(ctx context.Context, path string) (Writer, error) {
	w, err := h.inner.Create(ctx, path)
	return w, h.wrap(path, err)
}

func (h *hinting) Delete(ctx context.Context, path string) error {
	return h.wrap(path, h.inner.Delete(ctx, path))
}

func (h *hinting) List(ctx context.Context, dir string) ([]FileInfo, error) {
	infos, err := h.inner.List(ctx, dir)
	return infos, h.wrap(dir, err)
}
