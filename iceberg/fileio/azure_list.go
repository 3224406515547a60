package fileio

import (
	"context"
	"slices"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
)

// azureListPageSize bounds a listing page (0: the service's 5000), so tests
// can make a listing span pages without writing thousands of blobs.
var azureListPageSize int32

func azureMaxResults() *int32 {
	if azureListPageSize <= 0 {
		return nil
	}
	n := azureListPageSize
	return &n
}

// List returns the blobs directly under dir: a hierarchical listing with
// prefix dir+"/" and delimiter "/", so deeper "directories" come back as
// prefixes and are skipped. Paths keep the caller's spelling of dir
// (abfss:// stays abfss://). A dir no blob lies under lists as empty.
func (a *Azure) List(ctx context.Context, dir string) ([]FileInfo, error) {
	var out []FileInfo
	err := a.listBelow(ctx, dir, func(prefix string, page *container.ListBlobsHierarchyResponse) {
		if page.Segment == nil {
			return
		}
		for _, b := range page.Segment.BlobItems {
			name := strings.TrimPrefix(azureString(b.Name), prefix)
			if name == "" || strings.Contains(name, "/") || isAzureFolder(b.Metadata) {
				continue
			}
			out = append(out, azureFileInfo(JoinPath(dir, name), b))
		}
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b FileInfo) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// ListDirs lists the prefixes directly below dir's prefix.
func (a *Azure) ListDirs(ctx context.Context, dir string) ([]string, error) {
	var out []string
	err := a.listBelow(ctx, dir, func(prefix string, page *container.ListBlobsHierarchyResponse) {
		if page.Segment == nil {
			return
		}
		for _, p := range page.Segment.BlobPrefixes {
			name := strings.TrimSuffix(strings.TrimPrefix(azureString(p.Name), prefix), "/")
			if name != "" && !strings.Contains(name, "/") {
				out = append(out, JoinPath(dir, name))
			}
		}
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(out)
	return out, nil
}

// listBelow hands each page of a hierarchical listing (prefix dir+"/",
// delimiter "/") to each. Every page is its own retried request, resumed
// from the previous page's marker.
func (a *Azure) listBelow(ctx context.Context, dir string, each func(prefix string, page *container.ListBlobsHierarchyResponse)) error {
	obj, err := a.parseLocation(dir, true)
	if err != nil {
		return err
	}
	c, err := a.client(obj)
	if err != nil {
		return err
	}
	cc := c.NewContainerClient(obj.container)
	prefix := azurePrefix(obj.key)
	var marker *string
	for {
		var page container.ListBlobsHierarchyResponse
		err := a.do(ctx, dir, func(ctx context.Context) error {
			pager := cc.NewListBlobsHierarchyPager("/", &container.ListBlobsHierarchyOptions{
				Prefix: &prefix, Marker: marker, MaxResults: azureMaxResults(), Include: container.ListBlobsInclude{Metadata: true},
			})
			var err error
			page, err = pager.NextPage(ctx)
			return err
		})
		if err != nil {
			return err
		}
		each(prefix, &page)
		if azureString(page.NextMarker) == "" {
			return nil
		}
		marker = page.NextMarker
	}
}

// ListTree lists every blob under dir+"/" (a flat listing, page by page),
// skipping directory markers: keys ending in "/" and a
// hierarchical-namespace account's directories.
func (a *Azure) ListTree(ctx context.Context, dir string) ([]FileInfo, error) {
	obj, err := a.parseLocation(dir, true)
	if err != nil {
		return nil, err
	}
	c, err := a.client(obj)
	if err != nil {
		return nil, err
	}
	cc := c.NewContainerClient(obj.container)
	prefix := azurePrefix(obj.key)
	var out []FileInfo
	var marker *string
	for {
		var page container.ListBlobsFlatResponse
		err := a.do(ctx, dir, func(ctx context.Context) error {
			pager := cc.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{
				Prefix: &prefix, Marker: marker, MaxResults: azureMaxResults(), Include: container.ListBlobsInclude{Metadata: true},
			})
			var err error
			page, err = pager.NextPage(ctx)
			return err
		})
		if err != nil {
			return nil, err
		}
		if page.Segment != nil {
			for _, b := range page.Segment.BlobItems {
				rel := strings.TrimPrefix(azureString(b.Name), prefix)
				if rel == "" || strings.HasSuffix(rel, "/") || isAzureFolder(b.Metadata) {
					continue
				}
				out = append(out, azureFileInfo(JoinPath(dir, rel), b))
			}
		}
		if azureString(page.NextMarker) == "" {
			return out, nil
		}
		marker = page.NextMarker
	}
}

// azurePrefix is the listing prefix of a directory key: "" for the
// container's top, else the key with one trailing "/".
func azurePrefix(key string) string {
	prefix := strings.TrimRight(key, "/")
	if prefix != "" {
		prefix += "/"
	}
	return prefix
}

func azureFileInfo(path string, b *container.BlobItem) FileInfo {
	info := FileInfo{Path: path}
	if p := b.Properties; p != nil {
		if p.ContentLength != nil {
			info.Size = *p.ContentLength
		}
		if p.LastModified != nil {
			info.ModTime = *p.LastModified
		}
	}
	return info
}

func azureString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
