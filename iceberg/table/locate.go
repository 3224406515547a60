package table

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/floedb/floe/iceberg/fileio"
)

// WarehouseEnv names the environment variable holding the default warehouse
// under which dataset names resolve.
const WarehouseEnv = "FLOE_WAREHOUSE"

// Hint file names: Java's HadoopTableOperations writes version-hint.text;
// some Impala test tables carry version-hint.txt.
var versionHintNames = [...]string{"version-hint.text", "version-hint.txt"}

// Metadata file suffixes, plain first. Java writes vN.gz.metadata.json for
// gzip and still reads the older vN.metadata.json.gz. Decompressing is left
// to the metadata reader.
var metadataSuffixes = [...]string{".metadata.json", ".gz.metadata.json", ".metadata.json.gz"}

// maxVersionProbes bounds how far a stale hint is followed one existence
// check at a time before a single listing is cheaper.
const maxVersionProbes = 8

// LocateMetadata resolves what a user names as a table into the path of its
// current metadata JSON file.
//
// A location ending in .json (or .json.gz) is taken as the metadata file
// itself and must exist. Anything else is a table directory whose metadata/
// folder is searched the way Hadoop tables are: the version hint (which may
// be empty, spelled version-hint.txt, or hold a file name instead of a
// number) gives a starting version, and later versions are probed because a
// hint may lag behind commits. Without a usable hint the metadata folder is
// listed and the highest vN.metadata.json or NNNNN-<uuid>.metadata.json wins.
// A metadata directory itself is accepted too.
//
// Errors for a table that is not there wrap fs.ErrNotExist.
func LocateMetadata(ctx context.Context, files fileio.FileIO, location string) (string, error) {
	if location == "" {
		return "", errors.New("locate table metadata: empty location")
	}
	trimmed := strings.TrimRight(location, "/")
	if strings.HasSuffix(trimmed, ".json") || strings.HasSuffix(trimmed, ".json.gz") {
		ok, err := files.Exists(ctx, trimmed)
		if err != nil {
			return "", fmt.Errorf("locate table metadata: %w", err)
		}
		if !ok {
			return "", fmt.Errorf("locate table metadata: metadata file %s: %w", trimmed, fs.ErrNotExist)
		}
		return trimmed, nil
	}
	path, err := locateInMetadataDir(ctx, files, fileio.JoinPath(location, "metadata"))
	if err != nil && errors.Is(err, fs.ErrNotExist) && lastElem(trimmed) == "metadata" {
		if p, err2 := locateInMetadataDir(ctx, files, location); err2 == nil {
			return p, nil
		}
	}
	return path, err
}

// locateInMetadataDir finds the newest metadata file in dir.
func locateInMetadataDir(ctx context.Context, files fileio.FileIO, dir string) (string, error) {
	hint, hintProblem, err := readVersionHint(ctx, files, dir)
	if err != nil {
		return "", err
	}
	if hintProblem == "" {
		path, ok, err := followHint(ctx, files, dir, hint)
		if err != nil || ok {
			return path, err
		}
		hintProblem = fmt.Sprintf("the version hint names %s, which does not exist", hintTarget(hint))
	}
	infos, err := files.List(ctx, dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("locate table metadata: no metadata directory %s: %w", dir, fs.ErrNotExist)
		}
		return "", fmt.Errorf("locate table metadata: %w", err)
	}
	path, err := newestListed(dir, infos, -1)
	if err != nil || path != "" {
		return path, err
	}
	why := ""
	if hintProblem != "" && hintProblem != "no version hint" {
		why = "; " + hintProblem
	}
	return "", fmt.Errorf("locate table metadata: no metadata file in %s (looked for version-hint.text, "+
		"v<N>.metadata.json and <N>-<uuid>.metadata.json)%s: %w", dir, why, fs.ErrNotExist)
}

// readVersionHint reads the first usable hint file. A missing, empty or
// unparsable hint is not an error, only a problem to report if nothing else
// is found either.
func readVersionHint(ctx context.Context, files fileio.FileIO, dir string) (versionHint, string, error) {
	problem := "no version hint"
	for _, name := range versionHintNames {
		path := fileio.JoinPath(dir, name)
		data, err := fileio.ReadFileLimited(ctx, files, path, MaxVersionHintBytes)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return versionHint{}, "", fmt.Errorf("locate table metadata: %w", err)
		}
		hint, err := parseVersionHint(data)
		if err == nil {
			return hint, "", nil
		}
		if problem == "no version hint" {
			problem = fmt.Sprintf("%s %v", name, err)
		}
	}
	return versionHint{}, problem, nil
}

// followHint turns a hint into the newest metadata file at or after it. ok
// is false when the hint names nothing that exists.
func followHint(ctx context.Context, files fileio.FileIO, dir string, hint versionHint) (string, bool, error) {
	if hint.file == "" {
		path, found, err := findVersion(ctx, files, dir, hint.version)
		if err != nil || !found {
			return "", false, err
		}
		return probeForward(ctx, files, dir, hint.version, path)
	}
	path := fileio.JoinPath(dir, hint.file)
	found, err := files.Exists(ctx, path)
	if err != nil || !found {
		return "", false, locateErr(err)
	}
	if strings.HasPrefix(hint.file, "v") {
		return probeForward(ctx, files, dir, hint.version, path)
	}
	// A <N>-<uuid> name cannot be guessed for N+1, so only a listing shows
	// whether commits followed the hint.
	return newerInListing(ctx, files, dir, hint.version, path)
}

// probeForward checks vN+1, vN+2, … and returns the last that exists.
func probeForward(ctx context.Context, files fileio.FileIO, dir string, version int64, path string) (string, bool, error) {
	for range maxVersionProbes {
		if version >= math.MaxInt32 {
			return path, true, nil
		}
		next, found, err := findVersion(ctx, files, dir, version+1)
		if err != nil {
			return "", false, err
		}
		if !found {
			return path, true, nil
		}
		version, path = version+1, next
	}
	return newerInListing(ctx, files, dir, version, path)
}

// newerInListing returns the newest listed metadata file above version, or
// path when there is none.
func newerInListing(ctx context.Context, files fileio.FileIO, dir string, version int64, path string) (string, bool, error) {
	infos, err := files.List(ctx, dir)
	if err != nil {
		return "", false, locateErr(err)
	}
	newer, err := newestListed(dir, infos, version)
	if err != nil {
		return "", false, err
	}
	if newer != "" {
		return newer, true, nil
	}
	return path, true, nil
}

// findVersion looks for vN under each metadata suffix.
func findVersion(ctx context.Context, files fileio.FileIO, dir string, version int64) (string, bool, error) {
	for _, suffix := range metadataSuffixes {
		path := fileio.JoinPath(dir, "v"+strconv.FormatInt(version, 10)+suffix)
		found, err := files.Exists(ctx, path)
		if err != nil {
			return "", false, locateErr(err)
		}
		if found {
			return path, true, nil
		}
	}
	return "", false, nil
}

// newestListed picks the listed metadata file with the highest version above
// the given one; "" when there is none. Two files claiming the top version
// (a lost race between writers that did not use put-if-absent) cannot be
// told apart without a catalog, so that is an error.
func newestListed(dir string, infos []fileio.FileInfo, above int64) (string, error) {
	best := above
	var paths []string
	for _, info := range infos {
		v, ok := parseMetadataFileName(lastElem(info.Path))
		if !ok || v < best || v == above {
			continue
		}
		if v > best {
			best, paths = v, paths[:0]
		}
		paths = append(paths, info.Path)
	}
	switch len(paths) {
	case 0:
		return "", nil
	case 1:
		return paths[0], nil
	default:
		return "", fmt.Errorf("locate table metadata: %d metadata files in %s claim version %d (%s); pass the metadata file explicitly",
			len(paths), dir, best, strings.Join(paths, ", "))
	}
}

func locateErr(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("locate table metadata: %w", err)
}

func lastElem(location string) string {
	return location[strings.LastIndexByte(location, '/')+1:]
}

// versionHint is what a version-hint file says: a version, and the metadata
// file name when the hint spells one out.
type versionHint struct {
	version int64
	file    string
}

func hintTarget(h versionHint) string {
	if h.file != "" {
		return h.file
	}
	return "version " + strconv.FormatInt(h.version, 10)
}

// maxHintLen caps what is worth parsing; real hints are a number or a file
// name.
const maxHintLen = 1024

// parseVersionHint reads a hint holding a decimal version ("7") or a metadata
// file name with or without its suffix ("00001-<uuid>"), surrounded by any
// whitespace. A path is reduced to its file name: the metadata file must be
// in the hint's own directory.
func parseVersionHint(data []byte) (versionHint, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	s := strings.TrimSpace(string(data))
	switch {
	case s == "":
		return versionHint{}, errors.New("is empty")
	case len(s) > maxHintLen:
		return versionHint{}, fmt.Errorf("holds %d bytes, too many for a version or file name", len(s))
	}
	if isDigits(s) {
		v, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return versionHint{}, fmt.Errorf("holds version %.40s, out of range", s)
		}
		return versionHint{version: v}, nil
	}
	name := lastElem(s)
	if !hasMetadataSuffix(name) {
		name += ".metadata.json"
	}
	v, ok := parseMetadataFileName(name)
	if !ok {
		return versionHint{}, fmt.Errorf("holds %q, neither a version nor a metadata file name", truncate(s, 80))
	}
	return versionHint{version: v, file: name}, nil
}

// parseMetadataFileName returns the version of a vN.metadata.json or
// NNNNN-<uuid>.metadata.json name (any suffix in metadataSuffixes).
func parseMetadataFileName(name string) (int64, bool) {
	stem, ok := trimMetadataSuffix(name)
	if !ok || stem == "" {
		return 0, false
	}
	digits := ""
	if stem[0] == 'v' {
		digits = stem[1:]
	} else {
		var rest string
		digits, rest, ok = strings.Cut(stem, "-")
		if !ok || rest == "" || !isNameRest(rest) {
			return 0, false
		}
	}
	if !isDigits(digits) {
		return 0, false
	}
	v, err := strconv.ParseInt(digits, 10, 32)
	return v, err == nil
}

func trimMetadataSuffix(name string) (string, bool) {
	// Longest first: ".gz.metadata.json" also ends in ".metadata.json".
	for _, suffix := range [...]string{".gz.metadata.json", ".metadata.json.gz", ".metadata.json"} {
		if stem, ok := strings.CutSuffix(name, suffix); ok {
			return stem, true
		}
	}
	return "", false
}

func hasMetadataSuffix(name string) bool {
	_, ok := trimMetadataSuffix(name)
	return ok
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isNameRest accepts the <uuid> part of NNNNN-<uuid>, liberally: letters,
// digits, '-' and '_'.
func isNameRest(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// WarehouseLocation turns a dataset name into a table location under a
// warehouse: "ns.table" → <warehouse>/ns/table, "a.b.t" → <warehouse>/a/b/t.
// An empty warehouse means the FLOE_WAREHOUSE environment variable. The
// warehouse may be a directory or a URI such as s3://bucket/prefix.
func WarehouseLocation(warehouse, name string) (string, error) {
	if warehouse == "" {
		warehouse = os.Getenv(WarehouseEnv)
	}
	if warehouse == "" {
		return "", fmt.Errorf("table %q: no warehouse: pass one or set %s", name, WarehouseEnv)
	}
	if name == "" {
		return "", errors.New("empty table name")
	}
	parts := strings.Split(name, ".")
	for _, p := range parts {
		if p == "" {
			return "", fmt.Errorf("table name %q has an empty namespace or table part", name)
		}
		if strings.ContainsAny(p, "/\\\x00") {
			return "", fmt.Errorf("table name %q: part %q holds a path separator", name, p)
		}
	}
	return fileio.JoinPath(warehouse, parts...), nil
}
