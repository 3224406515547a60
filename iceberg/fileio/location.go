package fileio

import (
	"errors"
	"fmt"
	"strings"
)

// Scheme returns the lower-cased URI scheme of a location ("s3", "hdfs",
// "file"), or "" for a plain path. Only a scheme followed by "/" counts, so a
// relative file name holding a colon stays a path, and a one-letter scheme is
// taken for a Windows drive letter.
func Scheme(location string) string {
	for i := 0; i < len(location); i++ {
		c := location[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case c == ':' && i > 1 && i+1 < len(location) && location[i+1] == '/':
			return strings.ToLower(location[:i])
		default:
			return ""
		}
	}
	return ""
}

// JoinPath appends path elements to a location with "/" separators. Unlike
// path.Join it leaves the location's own spelling alone, so "s3://bucket"
// keeps its double slash and "file:///" stays a URI.
func JoinPath(location string, elems ...string) string {
	var b strings.Builder
	base := trimTrailingSlashes(location)
	b.WriteString(base)
	sep := base != "" && !strings.HasSuffix(base, "/")
	for _, e := range elems {
		e = strings.Trim(e, "/")
		if e == "" {
			continue
		}
		if sep {
			b.WriteByte('/')
		}
		b.WriteString(e)
		sep = true
	}
	return b.String()
}

// trimTrailingSlashes drops trailing slashes unless that would turn a root
// ("/", "file:///", "s3://") into something else.
func trimTrailingSlashes(location string) string {
	t := strings.TrimRight(location, "/")
	if t == "" || strings.HasSuffix(t, ":") {
		return location
	}
	return t
}

// baseName is the last element of a location.
func baseName(location string) string {
	return location[strings.LastIndexByte(location, '/')+1:]
}

// localPath turns a plain path or file: URI into an operating-system path.
// Percent escapes are deliberately not decoded: Iceberg writers put escaped
// partition values ("name=a%20b") into real file names, and Hadoop paths are
// stored unescaped.
func localPath(location string) (string, error) {
	if location == "" {
		return "", errors.New("fileio: empty path")
	}
	switch Scheme(location) {
	case "":
		return location, nil
	case "file":
		return fileURIPath(location)
	default:
		return "", unsupportedScheme(location)
	}
}

// Canonical is the one spelling in which locations are compared and
// mapped: a file: URI naming a local path (file:/p, file:///p,
// file://localhost/p) becomes the plain path /p, so every spelling of a
// local file is one key. Anything else is returned as it is, a file: URI
// naming another host included (opening it fails with an error saying so).
// It rewrites nothing on disk or in metadata: tables keep the spelling
// they were written with.
func Canonical(location string) string {
	if Scheme(location) != "file" {
		return location
	}
	p, err := fileURIPath(location)
	if err != nil {
		return location
	}
	return p
}

// fileURIPath accepts file:/x, file:///x and file://localhost/x. What
// follows "file://" is an authority, so file://p/x names host p and is
// refused rather than read as the path p/x.
func fileURIPath(uri string) (string, error) {
	rest := uri[len("file:"):]
	if !strings.HasPrefix(rest, "//") {
		return rest, nil
	}
	host, path, found := strings.Cut(rest[2:], "/")
	if !found {
		return "", fmt.Errorf("fileio: %s: file URI has no path", uri)
	}
	if host != "" && !strings.EqualFold(host, "localhost") {
		return "", fmt.Errorf("fileio: %s: file URI names host %q; only local files are supported", uri, host)
	}
	return "/" + path, nil
}

// fileURIRelative is the relative path a writer meant by file://p/x
// where p is not a host a local file can name (not empty, not
// localhost): p/x. DuckDB, GlareDB and BigQuery write such locations.
func fileURIRelative(uri string) (string, bool) {
	if Scheme(uri) != "file" {
		return "", false
	}
	rest, ok := strings.CutPrefix(uri[len("file:"):], "//")
	if !ok {
		return "", false
	}
	host, _, _ := strings.Cut(rest, "/")
	if host == "" || strings.EqualFold(host, "localhost") {
		return "", false
	}
	return rest, true
}

func unsupportedScheme(location string) error {
	return fmt.Errorf("fileio: no FileIO for %s: %w %q; if the table was copied from another system, "+
		"map the prefix to a local directory with location_map / --map", location, ErrUnsupportedScheme, Scheme(location))
}
