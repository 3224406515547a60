package fileio

import (
	"strings"
	"testing"
)

func TestParseS3Location(t *testing.T) {
	good := []struct{ loc, bucket, key string }{
		{"s3://bucket/key", "bucket", "key"},
		{"s3a://bucket/a/b/c.parquet", "bucket", "a/b/c.parquet"},
		{"S3://Bucket_Old/k", "Bucket_Old", "k"},
		{"s3://b.with.dots/x=a%20b/f", "b.with.dots", "x=a%20b/f"}, // no percent-decoding
		{"s3://b//double", "b", "/double"},                         // keys are opaque
		{"s3://b/dir/", "b", "dir/"},
	}
	for _, c := range good {
		got, err := parseS3Location(c.loc, false)
		if err != nil || got.bucket != c.bucket || got.key != c.key {
			t.Errorf("parseS3Location(%q) = %+v, %v; want %s / %s", c.loc, got, err, c.bucket, c.key)
		}
	}
	bad := []struct{ loc, why string }{
		{"s3://bucket", "bucket, not an object"},
		{"s3://bucket/", "bucket, not an object"},
		{"s3:///key", "no bucket"},
		{"s3:/bucket/key", "s3://bucket/key"},
		{"s3://bu?cket/key", "character"},
		{"s3://bu cket/key", "character"},
		{"gs://bucket/key", "not an s3"},
		{"/local/path", "not an s3"},
		{"", "not an s3"},
	}
	for _, c := range bad {
		_, err := parseS3Location(c.loc, false)
		if err == nil || !strings.Contains(err.Error(), c.why) {
			t.Errorf("parseS3Location(%q) = %v, want an error saying %q", c.loc, err, c.why)
		}
	}
	// A listing may name the bucket's top level.
	for _, loc := range []string{"s3://bucket", "s3a://bucket/"} {
		if got, err := parseS3Location(loc, true); err != nil || got.bucket != "bucket" || got.key != "" {
			t.Errorf("parseS3Location(%q, dir) = %+v, %v", loc, got, err)
		}
	}
}

func FuzzS3Location(f *testing.F) {
	for _, p := range fixturePrefixes(f) {
		f.Add(p)
		f.Add("s3://bucket" + strings.TrimPrefix(p, "hdfs://localhost:20500"))
	}
	for _, s := range []string{"s3://b/k", "s3a://b/", "s3://", "s3:/x", "S3A://B_/k/../x", "s3://b?x/k"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, loc string) {
		obj, err := parseS3Location(loc, true)
		if err != nil {
			return
		}
		if obj.bucket == "" || strings.ContainsAny(obj.bucket, "/?#% ") {
			t.Fatalf("parseS3Location(%q) accepted bucket %q", loc, obj.bucket)
		}
		if !strings.HasSuffix(loc, obj.bucket+"/"+obj.key) && !(obj.key == "" && strings.HasSuffix(loc, obj.bucket)) {
			t.Fatalf("parseS3Location(%q) = %+v does not rebuild the location", loc, obj)
		}
	})
}
