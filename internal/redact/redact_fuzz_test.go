package redact

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

// uriForms are the places a password sits in the catalog URIs floe takes.
var uriForms = []func(user, password, rest string) string{
	func(user, password, rest string) string { return "postgresql://" + user + ":" + password + "@" + rest },
	func(user, password, rest string) string { return "http://" + user + ":" + password + "@" + rest },
	func(user, password, rest string) string { return "https://" + user + ":" + password + "@" + rest },
	func(user, password, rest string) string {
		return "sqlite:///" + rest + "?_auth_user=" + user + "&_auth_pass=" + password
	},
	func(user, password, rest string) string { return "sqlite:" + rest + "?password=" + password },
}

// A password never shows in what floe says of a catalog: the URI's shown
// form, an error quoting the URI, or a server's answer echoing a secret
// property (a header's value) in any spelling, whatever the rest of the
// URI holds, a malformed one included.
func FuzzCatalogURIRedaction(f *testing.F) {
	f.Add(uint8(0), "floe", "s3cr3tpass", "127.0.0.1:5432/db")
	f.Add(uint8(0), "u", "p@ss%zzword", "host/db?sslmode=disable")
	f.Add(uint8(1), "u", "S3CRET%zz", "host/")
	f.Add(uint8(2), "", "hunter22", "[::1]:5432/x")
	f.Add(uint8(3), "a b", "pa ss wo rd", "tmp/c.db")
	f.Add(uint8(4), "a", "pa&ss=wo#rd", "c.db")
	f.Fuzz(func(t *testing.T, form uint8, user, password, rest string) {
		if len(password) < 6 || strings.Trim(password, "0123456789abcdefABCDEF%") == "" ||
			strings.Contains("postgresql://https:///sqlite:@xxxxx(unparseable URI)?…_auth_user=&_auth_pass=password=", password) {
			return // too short, or what escaping alone can spell
		}
		for _, part := range []string{user, rest} {
			for _, spelled := range []string{part, url.PathEscape(part), url.QueryEscape(part)} {
				if strings.Contains(spelled, password) {
					return // the rest of the URI spells it too
				}
			}
		}
		uri := uriForms[int(form)%len(uriForms)](user, password, rest)
		if strings.Contains(URI(uri), password) {
			t.Fatalf("URI(%q) = %q shows the password", uri, URI(uri))
		}
		var s Secrets
		s.AddURI(uri)
		if err := s.Error(errors.New("connect to " + uri + ": refused")); strings.Contains(err.Error(), password) {
			t.Fatalf("the error shows the password: %v", err)
		}
		// A header's value, echoed by a server in JSON, a form or a query.
		var h Secrets
		h.AddProperties(map[string]string{"header.X-Api-Key": password, "uri": uri})
		for _, echoed := range spellings(password) {
			body := `{"error":{"message":"bad request {\"k\": \"` + echoed + `\"}"}}`
			if got := h.String(body); strings.Contains(got, password) || strings.Contains(got, echoed) {
				t.Fatalf("the echoed body shows the secret: %s", got)
			}
		}
	})
}
