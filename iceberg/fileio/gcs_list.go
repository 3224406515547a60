package fileio

import (
	"context"
	"slices"
	"strings"

	"cloud.google.com/go/storage"
	"google.golang.org/api/iterator"
)

// gcsListPage is the most objects one listing request asks for (GCS's
// maximum).
const gcsListPage = 1000

// List returns the objects directly under dir: a listing with prefix
// dir+"/" and delimiter "/", so deeper "directories" come back as prefixes
// and are skipped. A dir no object lies under lists as empty.
func (g *GCS) List(ctx context.Context, dir string) ([]FileInfo, error) {
	var out []FileInfo
	err := g.listBelow(ctx, dir, "/", func(prefix string, o *storage.ObjectAttrs) {
		name := strings.TrimPrefix(o.Name, prefix)
		if o.Name == "" || name == "" || strings.Contains(name, "/") {
			return // a prefix, the "directory marker" object itself, or a server ignoring the delimiter
		}
		out = append(out, FileInfo{Path: JoinPath(dir, name), Size: o.Size, ModTime: o.Updated})
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b FileInfo) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// ListDirs lists the prefixes directly below dir's prefix.
func (g *GCS) ListDirs(ctx context.Context, dir string) ([]string, error) {
	var out []string
	err := g.listBelow(ctx, dir, "/", func(prefix string, o *storage.ObjectAttrs) {
		if o.Prefix == "" {
			return
		}
		name := strings.TrimSuffix(strings.TrimPrefix(o.Prefix, prefix), "/")
		if name != "" && !strings.Contains(name, "/") {
			out = append(out, JoinPath(dir, name))
		}
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(out)
	return out, nil
}

// ListTree lists every object under dir+"/" at any depth, page by page,
// skipping directory marker objects (names ending in "/").
func (g *GCS) ListTree(ctx context.Context, dir string) ([]FileInfo, error) {
	var out []FileInfo
	err := g.listBelow(ctx, dir, "", func(prefix string, o *storage.ObjectAttrs) {
		rel := strings.TrimPrefix(o.Name, prefix)
		if rel == "" || strings.HasSuffix(rel, "/") {
			return
		}
		out = append(out, FileInfo{Path: JoinPath(dir, rel), Size: o.Size, ModTime: o.Updated})
	})
	return out, err
}

// listBelow hands each entry of a listing of dir's prefix (with
// delimiter, which may be "") to each, page by page; each page is one
// request, retried on its own.
func (g *GCS) listBelow(ctx context.Context, dir, delimiter string, each func(prefix string, o *storage.ObjectAttrs)) error {
	obj, err := parseGCSLocation(dir, true)
	if err != nil {
		return err
	}
	prefix := strings.TrimRight(obj.name, "/")
	if prefix != "" {
		prefix += "/"
	}
	q := &storage.Query{Prefix: prefix, Delimiter: delimiter}
	if err := q.SetAttrSelection([]string{"Name", "Size", "Updated"}); err != nil {
		return err
	}
	token := ""
	for {
		var page []*storage.ObjectAttrs
		var next string
		err := g.do(ctx, dir, func(ctx context.Context) error {
			page = page[:0]
			var err error
			next, err = iterator.NewPager(g.client.Bucket(obj.bucket).Objects(ctx, q), gcsListPage, token).NextPage(&page)
			return err
		})
		if err != nil {
			return err
		}
		for _, o := range page {
			each(prefix, o)
		}
		if next == "" {
			return nil
		}
		token = next
	}
}
