package fileio

import "testing"

func TestWithProperties(t *testing.T) {
	if WithProperties(nil, map[string]string{"other": "x"}) != nil {
		t.Fatal("no S3 property and no base should leave the environment to decide")
	}
	base := &S3Options{Endpoint: "http://base", AccessKeyID: "a", SecretAccessKey: "b", SessionToken: "c", MaxAttempts: 3}
	got := WithProperties(base,
		map[string]string{PropS3Endpoint: "http://catalog", PropS3PathStyle: "true", PropS3Region: "eu-west-1"},
		map[string]string{PropS3AccessKeyID: "vended", PropS3SecretAccessKey: "vsecret"},
	)
	want := S3Options{Endpoint: "http://catalog", Region: "eu-west-1", PathStyle: true, AccessKeyID: "vended", SecretAccessKey: "vsecret", MaxAttempts: 3}
	if *got != want {
		t.Fatalf("got %+v, want %+v", *got, want)
	}
	if base.Endpoint != "http://base" || base.SessionToken != "c" {
		t.Fatal("the base was changed")
	}
	// A later set that names only the endpoint keeps earlier credentials.
	got = WithProperties(nil, map[string]string{PropS3AccessKeyID: "k", PropS3SecretAccessKey: "s"}, map[string]string{PropS3Endpoint: "http://e"})
	if got.AccessKeyID != "k" || got.Endpoint != "http://e" {
		t.Fatalf("got %+v", *got)
	}
}
