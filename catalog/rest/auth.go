package rest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/internal/redact"
)

// authenticator puts a request's credentials on it.
type authenticator interface {
	authorize(ctx context.Context, r *http.Request, payload []byte) error
	// canRefresh: a 401 or 419 answer may be cured by refresh.
	canRefresh() bool
	refresh(ctx context.Context) error
}

// noAuth sends requests as they are.
type noAuth struct{}

func (noAuth) authorize(context.Context, *http.Request, []byte) error { return nil }
func (noAuth) canRefresh() bool                                       { return false }
func (noAuth) refresh(context.Context) error                          { return nil }

// bearer sends a static token.
type bearer struct{ token string }

func (b bearer) authorize(_ context.Context, r *http.Request, _ []byte) error {
	r.Header.Set("Authorization", "Bearer "+b.token)
	return nil
}
func (bearer) canRefresh() bool              { return false }
func (bearer) refresh(context.Context) error { return nil }

// oauth2 gets tokens with the client-credentials grant (RFC 6749 §4.4)
// and gets a new one before the current one expires, or when the server
// says it has (401, 419).
type oauth2 struct {
	c            *client
	endpoint     string // absolute URL, or a path below the catalog URI
	clientID     string
	clientSecret string
	scope        string

	mu      sync.Mutex
	token   string
	expires time.Time // zero: never, as far as the server said
	margin  time.Duration
}

// refreshMargin is how long before its expiry a token is replaced, so a
// request never leaves with a token that lapses on the way: a minute, or
// a tenth of the token's life when that is shorter.
const refreshMargin = 60 * time.Second

func (o *oauth2) authorize(ctx context.Context, r *http.Request, _ []byte) error {
	o.mu.Lock()
	token, expires, margin := o.token, o.expires, o.margin
	o.mu.Unlock()
	if token == "" || (!expires.IsZero() && time.Until(expires) < margin) {
		if err := o.refresh(ctx); err != nil {
			return err
		}
		o.mu.Lock()
		token = o.token
		o.mu.Unlock()
	}
	r.Header.Set("Authorization", "Bearer "+token)
	return nil
}

func (o *oauth2) canRefresh() bool { return true }

func (o *oauth2) refresh(ctx context.Context) error {
	form := url.Values{
		"grant_type":    {"client_credentials"},
		"client_id":     {o.clientID},
		"client_secret": {o.clientSecret},
	}
	if o.scope != "" {
		form.Set("scope", o.scope)
	}
	var answer struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
		ExpiresIn   int64  `json:"expires_in"`
	}
	req := request{method: http.MethodPost, path: o.endpoint, form: form, noAuth: true, idempotent: true}
	if err := o.c.do(ctx, req, &answer); err != nil {
		return fmt.Errorf("%s: get an OAuth2 token: %w", o.c.name, errkind.Default(errkind.Unauthorized, err))
	}
	if answer.AccessToken == "" {
		return errkind.Errorf(errkind.Unauthorized, "%s: the OAuth2 token endpoint answered without an access_token", o.c.name)
	}
	o.c.secrets.Add(answer.AccessToken)
	o.mu.Lock()
	defer o.mu.Unlock()
	o.token = answer.AccessToken
	o.expires = time.Time{}
	if answer.ExpiresIn > 0 {
		life := time.Duration(answer.ExpiresIn) * time.Second
		o.expires = time.Now().Add(life)
		o.margin = min(refreshMargin, life/10)
	}
	return nil
}

// sigv4 signs requests with AWS Signature Version 4 (catalogs behind API
// Gateway or AWS's own, such as Glue and S3 Tables).
type sigv4 struct {
	signer  *v4.Signer
	creds   aws.CredentialsProvider
	region  string
	service string
}

func newSigV4(ctx context.Context, props map[string]string, sec *redact.Secrets) (*sigv4, error) {
	s := &sigv4{signer: v4.NewSigner(), region: props[PropSigningRegion], service: props[PropSigningName]}
	if s.service == "" {
		s.service = "execute-api"
	}
	if id, key := firstOf(props, PropSigV4AccessKeyID, fileio.PropS3AccessKeyID), firstOf(props, PropSigV4SecretAccessKey, fileio.PropS3SecretAccessKey); id != "" && key != "" {
		sec.Add(key)
		token := firstOf(props, PropSigV4SessionToken, fileio.PropS3SessionToken)
		sec.Add(token)
		s.creds = credentials.NewStaticCredentialsProvider(id, key, token)
	} else {
		cfg, err := awsconfig.LoadDefaultConfig(ctx)
		if err != nil {
			return nil, errkind.Wrap(errkind.InvalidArgument, fmt.Errorf("SigV4 signing: AWS configuration: %w", err))
		}
		s.creds = cfg.Credentials
		if s.region == "" {
			s.region = cfg.Region
		}
	}
	if s.region == "" {
		return nil, errkind.Errorf(errkind.InvalidArgument, "SigV4 signing needs %q (or an AWS region in the environment)", PropSigningRegion)
	}
	return s, nil
}

func (s *sigv4) authorize(ctx context.Context, r *http.Request, payload []byte) error {
	creds, err := s.creds.Retrieve(ctx)
	if err != nil {
		return errkind.Wrap(errkind.Unauthorized, fmt.Errorf("SigV4 signing: credentials: %w", err))
	}
	sum := sha256.Sum256(payload)
	hash := hex.EncodeToString(sum[:])
	r.Header.Set("X-Amz-Content-Sha256", hash)
	return s.signer.SignHTTP(ctx, creds, r, hash, s.service, s.region, time.Now())
}
func (*sigv4) canRefresh() bool              { return false }
func (*sigv4) refresh(context.Context) error { return nil }

// splitCredential reads "id:secret", or a bare secret (an empty client
// id, as Iceberg's Java client allows).
func splitCredential(cred string) (id, secret string) {
	if i := strings.IndexByte(cred, ':'); i >= 0 {
		return cred[:i], cred[i+1:]
	}
	return "", cred
}

func firstOf(props map[string]string, keys ...string) string {
	for _, k := range keys {
		if v := props[k]; v != "" {
			return v
		}
	}
	return ""
}
