package resttest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// checkSigV4 signs the request again with the server's credentials, at
// the time the client signed it, and compares the signatures: a client
// that signed anything else (another key, region, service, body) fails.
func (s *Server) checkSigV4(r *http.Request) error {
	got := r.Header.Get("Authorization")
	if !strings.HasPrefix(got, "AWS4-HMAC-SHA256 ") {
		return errors.New("no SigV4 Authorization header")
	}
	when, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	if err != nil {
		return errors.New("no X-Amz-Date")
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	sum := sha256.Sum256(body)
	hash := hex.EncodeToString(sum[:])
	again := r.Clone(r.Context())
	again.URL.Scheme, again.URL.Host = "http", r.Host
	again.Header.Del("Authorization")
	// Only what the client signed counts; the transport adds headers
	// after signing (Accept-Encoding), as it does for a real server.
	signed := map[string]bool{}
	if _, after, ok := strings.Cut(got, "SignedHeaders="); ok {
		list, _, _ := strings.Cut(after, ",")
		for _, h := range strings.Split(list, ";") {
			signed[h] = true
		}
	}
	for k := range again.Header {
		if !signed[strings.ToLower(k)] {
			again.Header.Del(k)
		}
	}
	again.Body = io.NopCloser(bytes.NewReader(body))
	creds := aws.Credentials{AccessKeyID: s.opts.SigV4Key, SecretAccessKey: s.opts.SigV4Secret}
	if err := v4.NewSigner().SignHTTP(r.Context(), creds, again, hash, s.opts.SigV4Service, s.opts.SigV4Region, when); err != nil {
		return err
	}
	if again.Header.Get("Authorization") != got {
		return errors.New("the signature does not match")
	}
	return nil
}
