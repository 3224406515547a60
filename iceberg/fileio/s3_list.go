package fileio

import (
	"context"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// List returns the objects directly under dir: ListObjectsV2 with prefix
// dir+"/" and delimiter "/", so deeper "directories" come back as common
// prefixes and are skipped. Paths keep the caller's spelling of dir (s3a://
// stays s3a://). A dir no object lies under lists as empty.
func (s *S3) List(ctx context.Context, dir string) ([]FileInfo, error) {
	var out []FileInfo
	err := s.listBelow(ctx, dir, func(prefix string, page *s3.ListObjectsV2Output) {
		for _, o := range page.Contents {
			name := strings.TrimPrefix(aws.ToString(o.Key), prefix)
			if name == "" || strings.Contains(name, "/") {
				continue // the "directory marker" object itself; or a server ignoring the delimiter
			}
			out = append(out, FileInfo{Path: JoinPath(dir, name), Size: aws.ToInt64(o.Size), ModTime: aws.ToTime(o.LastModified)})
		}
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b FileInfo) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// ListDirs lists the common prefixes directly below dir's prefix.
func (s *S3) ListDirs(ctx context.Context, dir string) ([]string, error) {
	var out []string
	err := s.listBelow(ctx, dir, func(prefix string, page *s3.ListObjectsV2Output) {
		for _, p := range page.CommonPrefixes {
			name := strings.TrimSuffix(strings.TrimPrefix(aws.ToString(p.Prefix), prefix), "/")
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

// listBelow hands each page of ListObjectsV2 (prefix dir+"/", delimiter
// "/") to each, with the prefix it listed.
func (s *S3) listBelow(ctx context.Context, dir string, each func(prefix string, page *s3.ListObjectsV2Output)) error {
	obj, err := parseS3Location(dir, true)
	if err != nil {
		return err
	}
	prefix := strings.TrimRight(obj.key, "/")
	if prefix != "" {
		prefix += "/"
	}
	var token *string
	for {
		var page *s3.ListObjectsV2Output
		err := s.do(ctx, dir, func(ctx context.Context) error {
			var err error
			page, err = s.client.ListObjectsV2(ctx, &s3.ListObjectsV2Input{
				Bucket:            &obj.bucket,
				Prefix:            &prefix,
				Delimiter:         aws.String("/"),
				ContinuationToken: token,
			})
			return err
		})
		if err != nil {
			return err
		}
		each(prefix, page)
		if !aws.ToBool(page.IsTruncated) || aws.ToString(page.NextContinuationToken) == "" {
			return nil
		}
		token = page.NextContinuationToken
	}
}
