package fileio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"testing"
	"time"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/floedb/floe/errkind"
)

// apiErr builds the error the SDK returns for an S3 error response.
func apiErr(status int, code string) error {
	return &smithy.OperationError{ServiceID: "S3", OperationName: "PutObject", Err: &awshttp.ResponseError{
		ResponseError: &smithyhttp.ResponseError{
			Response: &smithyhttp.Response{Response: &http.Response{StatusCode: status}},
			Err:      &smithy.GenericAPIError{Code: code},
		},
	}}
}

func TestS3RetryClassification(t *testing.T) {
	r := newS3Retryer(5, 0, 0)
	retried := map[string]error{
		"503 SlowDown":                   apiErr(503, "SlowDown"),
		"500 InternalError":              apiErr(500, "InternalError"),
		"429":                            apiErr(429, "TooManyRequests"),
		"409 ConditionalRequestConflict": apiErr(409, "ConditionalRequestConflict"),
		"short body":                     fmt.Errorf("%w: %w", errShortBody, io.ErrUnexpectedEOF),
		"truncated XML":                  &smithy.DeserializationError{Err: io.ErrUnexpectedEOF},
	}
	for name, err := range retried {
		if !r.IsErrorRetryable(err) {
			t.Errorf("%s is not retried", name)
		}
	}
	final := map[string]error{
		"412 PreconditionFailed":  apiErr(412, "PreconditionFailed"),
		"404 NoSuchKey":           apiErr(404, "NoSuchKey"),
		"403 AccessDenied":        apiErr(403, "AccessDenied"),
		"409 BucketAlreadyExists": apiErr(409, "BucketAlreadyExists"),
		"cancelled":               fmt.Errorf("op: %w", context.Canceled),
		"final error":             finalError{fmt.Errorf("%w", errShortBody)},
	}
	for name, err := range final {
		if r.IsErrorRetryable(err) {
			t.Errorf("%s is retried", name)
		}
	}
	if err := s3Error("s3://b/k", apiErr(404, "NoSuchKey")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("404 → %v, want fs.ErrNotExist", err)
	}
	if err := s3Error("s3://b/k", apiErr(404, "NoSuchKey")); errkind.Of(err) != errkind.NotFound {
		t.Errorf("404 → kind %v, want NotFound", errkind.Of(err))
	}
	if err := s3Error("s3://b/k", apiErr(403, "AccessDenied")); errkind.Of(err) != errkind.Unauthorized {
		t.Errorf("403 → kind %v, want Unauthorized (errkind: a store refusing the credentials)", errkind.Of(err))
	}
	if err := s3Error("s3://b/k", apiErr(500, "InternalError")); errkind.Of(err) != errkind.IO {
		t.Errorf("500 → kind %v, want IO", errkind.Of(err))
	}
	if err := s3Error("s3://b/k", fmt.Errorf("put: %w", ErrExists)); errkind.Of(err) != errkind.Conflict {
		t.Errorf("a taken path → kind %v, want Conflict", errkind.Of(err))
	}
}

func TestFullJitterStaysWithinItsCeiling(t *testing.T) {
	j := fullJitter{base: 10 * time.Millisecond, max: 50 * time.Millisecond}
	for attempt := 1; attempt < 80; attempt++ {
		ceiling := min(j.max, j.base<<min(attempt-1, 30))
		for range 20 {
			d, _ := j.BackoffDelay(attempt, nil)
			if d < 0 || d > ceiling {
				t.Fatalf("attempt %d: delay %v outside [0, %v]", attempt, d, ceiling)
			}
		}
	}
}
