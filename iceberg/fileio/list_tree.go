package fileio

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/floedb/floe/errkind"
)

// TreeLister is a FileIO that lists every file below a directory, at any
// depth, in one listing: an object store's flat listing of a prefix, a
// request per thousand objects, where a walk directory by directory costs
// a request or two per directory. Orphan-file removal walks a whole table
// location with it.
type TreeLister interface {
	// ListTree returns the files below dir at any depth, each dir joined
	// with the file's path below it, in the caller's spelling of dir.
	ListTree(ctx context.Context, dir string) ([]FileInfo, error)
}

// ErrNoTreeListing is returned (wrapped) by ListTree for a FileIO that
// cannot list a tree in one listing: the caller walks it with List and
// ListDirs instead. It is of kind Unsupported.
var ErrNoTreeListing = errkind.New(errkind.Unsupported, "fileio: no listing of a whole tree")

// ListTree lists the files below dir at any depth when files is a
// TreeLister (through any wrapping FileIO), else fails with
// ErrNoTreeListing.
func ListTree(ctx context.Context, files FileIO, dir string) ([]FileInfo, error) {
	l, ok := files.(TreeLister)
	if !ok {
		return nil, ErrNoTreeListing
	}
	return l.ListTree(ctx, dir)
}

// ListTree lists every object under dir+"/" (ListObjectsV2 without a
// delimiter, page by page). Directory marker objects (keys ending in
// "/") are skipped.
func (s *S3) ListTree(ctx context.Context, dir string) ([]FileInfo, error) {
	obj, err := parseS3Location(dir, true)
	if err != nil {
		return nil, err
	}
	prefix := strings.TrimRight(obj.key, "/")
	if prefix != "" {
		prefix += "/"
	}
	var out []FileInfo
	var token *string
	for {
		var page *s3.ListObjectsV2Output
		err := s.do(ctx, dir, func(ctx context.Context) error {
			var err error
			page, err = s.client.ListObjectsV2(ctx, &s3.ListObjectsV2Input{
				Bucket: &obj.bucket, Prefix: &prefix, ContinuationToken: token,
			})
			return err
		})
		if err != nil {
			return nil, err
		}
		for _, o := range page.Contents {
			rel := strings.TrimPrefix(aws.ToString(o.Key), prefix)
			if rel == "" || strings.HasSuffix(rel, "/") {
				continue
			}
			out = append(out, FileInfo{Path: JoinPath(dir, rel), Size: aws.ToInt64(o.Size), ModTime: aws.ToTime(o.LastModified)})
		}
		if !aws.ToBool(page.IsTruncated) || aws.ToString(page.NextContinuationToken) == "" {
			return out, nil
		}
		token = page.NextContinuationToken
	}
}

func (l *lazyS3) ListTree(ctx context.Context, dir string) ([]FileInfo, error) {
	s, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return s.ListTree(ctx, dir)
}

func (r *Router) ListTree(ctx context.Context, dir string) ([]FileInfo, error) {
	files, err := r.Resolve(dir)
	if err != nil {
		return nil, err
	}
	return ListTree(ctx, files, dir)
}

// ListTree lists the remapped directory and names the files under the
// caller's dir again.
func (r *Remapping) ListTree(ctx context.Context, dir string) ([]FileInfo, error) {
	mapped := strings.TrimRight(r.m.Apply(dir), "/")
	infos, err := ListTree(ctx, r.inner, mapped)
	if err != nil {
		return nil, err
	}
	for i := range infos {
		infos[i].Path = JoinPath(dir, strings.TrimPrefix(strings.TrimPrefix(infos[i].Path, mapped), "/"))
	}
	return infos, nil
}

func (c *confined) ListTree(ctx context.Context, dir string) ([]FileInfo, error) {
	return ListTree(ctx, c.inner, dir)
}

func (h *hinting) ListTree(ctx context.Context, dir string) ([]FileInfo, error) {
	infos, err := ListTree(ctx, h.inner, dir)
	return infos, h.wrap(dir, err)
}
