package fileio

import (
	"fmt"
	"sync"
	"testing"
)

// Static credentials and an endpoint make a client without any network
// traffic, so the cache can be tested without a server.
func cacheTestOptions(n int) S3Options {
	return S3Options{Endpoint: "http://127.0.0.1:1", Region: "us-east-1", AccessKeyID: fmt.Sprintf("key-%d", n), SecretAccessKey: "secret", PathStyle: true}
}

func s3Of(t *testing.T, location string, opts S3Options) *S3 {
	t.Helper()
	files, err := ForLocation(location, Options{S3: &opts})
	if err != nil {
		t.Fatal(err)
	}
	lazy, ok := files.(*Router).schemes["s3"].(*lazyS3)
	if !ok {
		t.Fatalf("s3 routes to %T", files.(*Router).schemes["s3"])
	}
	s, err := lazy.get(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Tables opened with the same options share one client, from any number
// of goroutines at once; other options, or another AWS environment, get
// their own.
func TestS3ClientsAreSharedByOptions(t *testing.T) {
	opts := cacheTestOptions(1)
	first := s3Of(t, "s3://bucket/a", opts)
	var wg sync.WaitGroup
	got := make([]*S3, 16)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			files, err := ForLocation("s3://bucket/t", Options{S3: &opts})
			if err != nil {
				t.Error(err)
				return
			}
			got[i], err = files.(*Router).schemes["s3a"].(*lazyS3).get(t.Context())
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for i, s := range got {
		if s != first {
			t.Fatalf("open %d got another client", i)
		}
	}
	if s3Of(t, "s3://bucket/a", cacheTestOptions(2)) == first {
		t.Fatal("other credentials share the client")
	}
	t.Setenv("AWS_S3_TEST_CACHE_MARKER", "changed")
	if s3Of(t, "s3://bucket/a", opts) == first {
		t.Fatal("a changed AWS environment shares the client made before it")
	}
}

// The cache keeps at most maxCachedS3Clients, dropping the least recently
// used; a bad configuration is not remembered as a client.
func TestS3ClientCacheIsBounded(t *testing.T) {
	c := s3ClientCache{entries: map[s3ClientKey]*s3CacheEntry{}}
	ctx := t.Context()
	keep, err := c.get(ctx, cacheTestOptions(0))
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < 3*maxCachedS3Clients; i++ {
		if _, err := c.get(ctx, cacheTestOptions(i)); err != nil {
			t.Fatal(err)
		}
		if again, _ := c.get(ctx, cacheTestOptions(0)); again != keep {
			t.Fatalf("the recently used client was evicted after %d others", i)
		}
	}
	if len(c.entries) != maxCachedS3Clients {
		t.Fatalf("%d clients cached, want %d", len(c.entries), maxCachedS3Clients)
	}
	bad := S3Options{Anonymous: true, PartSize: 1}
	for range 2 {
		if _, err := c.get(ctx, bad); err == nil {
			t.Fatal("a 1-byte part size made a client")
		}
	}
	if e := c.entries[s3ClientKey{opts: bad, env: awsEnvironment()}]; e == nil || e.s3 != nil {
		t.Fatalf("bad options' entry = %+v", e)
	}
}
