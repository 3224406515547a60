// Package redact is floe's one rule for keeping secrets out of what it
// says: which properties hold secrets (Property), how a URI is shown
// (URI), and the masking of every secret a caller gave, in each spelling
// a message can carry it (as given, URL-escaped, JSON- or Go-quoted), in
// any text: an error of ours, a driver's, or a server's answer echoing
// the request (Secrets).
//
// The catalogs (SQL, REST), the C ABI and the CLI all redact through it,
// so a secret hidden in one place is hidden in every other.
package redact

import (
	"encoding/json"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Mask stands where a secret was.
const Mask = "xxxxx"

// minLen is the shortest value masked: a shorter one ("1", "yes") would
// mask ordinary words of every message while hiding next to nothing.
const minLen = 4

// Property tells whether the value of the property key is a secret: every
// header.* value (headers carry API keys and tokens under names of the
// server's choosing), and any key naming a secret, password, token,
// credential, API key or private key, whatever its prefix (s3., rest.,
// adls., gcs., a URI's query parameter such as _auth_pass), an Azure
// account key or connection string (which holds the key or a SAS), and a
// SAS's signature parameter (sig).
func Property(key string) bool {
	lower := strings.ToLower(key)
	if strings.HasPrefix(lower, "header.") {
		return true
	}
	if lower == "sig" {
		return true
	}
	for _, word := range []string{"secret", "pass", "token", "credential", "private-key", "private_key", "api-key", "api_key", "apikey", "authorization",
		"account-key", "account_key", "accountkey", "connection-string", "connection_string", "sharedaccesssignature"} {
		if strings.Contains(lower, word) {
			return true
		}
	}
	return false
}

// URI is how a URI is shown: scheme, user name, host and path; never a
// password, a query (which may carry password=...) or a fragment (where a
// malformed userinfo can land). One that does not parse shows its scheme
// only: where its password ends cannot be known.
func URI(uri string) string {
	u, err := url.Parse(uri)
	// An "@" the parser did not take for the end of the userinfo (it put
	// it in a path or fragment) leaves the password's extent unknown too.
	if err != nil || userinfo(uri) != "" && (u.User == nil || u.User.String() != userinfo(uri)) {
		if scheme, _, ok := strings.Cut(uri, "://"); ok && !strings.ContainsAny(scheme, "@:/?#") {
			return scheme + "://(unparseable URI)"
		}
		return "(unparseable URI)"
	}
	shown := url.URL{Scheme: u.Scheme, Opaque: u.Opaque, Host: u.Host, Path: u.Path}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			shown.User = url.UserPassword(u.User.Username(), Mask)
		} else {
			shown.User = url.User(u.User.Username())
		}
	}
	out := shown.String()
	if u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		out += "?…"
	}
	return out
}

// userinfo is what a URI's text holds between "//" and the last "@" of
// its authority, read without parsing; "" for none. A malformed password
// may hold "/", "?" or "#", so the last "@" anywhere is taken.
func userinfo(uri string) string {
	_, rest, ok := strings.Cut(uri, "//")
	if !ok {
		return ""
	}
	at := strings.LastIndex(rest, "@")
	if at <= 0 {
		return ""
	}
	return rest[:at]
}

// Secrets are the values no message may show, and the URIs to show only
// in their URI form. Safe for concurrent use; a nil *Secrets masks
// nothing.
type Secrets struct {
	mu     sync.Mutex
	values map[string]bool
	uris   map[string]string // as given → as shown
	// spellings, longest first, rebuilt when values change.
	spellings []string
}

// Add adds values to mask (those shorter than four bytes, and true and
// false, are ignored).
func (s *Secrets) Add(values ...string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range values {
		if len(v) < minLen || s.values[v] || v == "true" || v == "false" {
			// A flag's value (token-exchange-enabled=true) hides nothing.
			continue
		}
		if s.values == nil {
			s.values = map[string]bool{}
		}
		s.values[v] = true
		s.spellings = nil
	}
}

// AddProperties adds the values of the properties Property names, and the
// secrets of every value that is a URI with credentials.
func (s *Secrets) AddProperties(props map[string]string) {
	for k, v := range props {
		if Property(k) {
			s.Add(v)
			s.addConnectionStringSecrets(v)
		}
		if strings.Contains(v, "://") || strings.Contains(v, "?") {
			s.addURISecrets(v)
		}
	}
}

// AddURI makes uri show as URI(uri) wherever it appears whole, and masks
// its password (parsed, and as the text of a userinfo that does not
// parse) and the values of its secret query parameters anywhere.
func (s *Secrets) AddURI(uri string) {
	if s == nil || uri == "" {
		return
	}
	s.mu.Lock()
	if s.uris == nil {
		s.uris = map[string]string{}
	}
	s.uris[uri] = URI(uri)
	s.mu.Unlock()
	s.addURISecrets(uri)
}

func (s *Secrets) addURISecrets(uri string) {
	if info := userinfo(uri); info != "" {
		// The text after the user name's ":" may be a password that does
		// not parse (a bad %-escape): mask it as written, and the whole.
		if _, pw, ok := strings.Cut(info, ":"); ok {
			s.Add(pw, info)
		}
	}
	if u, err := url.Parse(uri); err == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok {
			s.Add(pw)
		}
	}
	_, query, ok := strings.Cut(uri, "?")
	if !ok {
		return
	}
	query, _, _ = strings.Cut(query, "#")
	for _, kv := range QueryPairs(query) {
		if Property(kv[0]) || Property(unescape(kv[0])) {
			s.Add(kv[1], unescape(kv[1]))
		}
	}
}

// addConnectionStringSecrets masks the key and the SAS inside an Azure
// connection string (AccountName=…;AccountKey=…;SharedAccessSignature=…)
// on their own too, and a SAS's signature: a message may quote one part
// without the rest.
func (s *Secrets) addConnectionStringSecrets(v string) {
	for _, kv := range QueryPairs(v) {
		if Property(kv[0]) || Property(unescape(kv[0])) {
			s.Add(kv[1], unescape(kv[1]))
			if strings.EqualFold(kv[0], "SharedAccessSignature") {
				s.addConnectionStringSecrets(kv[1])
			}
		}
	}
}

// QueryPairs splits a URI query into its key and value pairs as every
// driver might read it: pairs split at '&', ';' or a further '?', each at
// its first '='.
func QueryPairs(query string) [][2]string {
	var out [][2]string
	for _, pair := range strings.FieldsFunc(query, func(r rune) bool { return r == '&' || r == ';' || r == '?' }) {
		k, v, _ := strings.Cut(pair, "=")
		out = append(out, [2]string{k, v})
	}
	return out
}

func unescape(s string) string {
	if u, err := url.QueryUnescape(s); err == nil {
		return u
	}
	return s
}

// String is msg with every URI given to AddURI in its shown form and
// every secret masked, in every spelling.
func (s *Secrets) String(msg string) string {
	if s == nil {
		return msg
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.uris) > 0 {
		// Longest first: a URI that holds another is replaced whole.
		uris := make([]string, 0, len(s.uris))
		for u := range s.uris {
			uris = append(uris, u)
		}
		sort.Slice(uris, func(i, j int) bool { return len(uris[i]) > len(uris[j]) })
		for _, u := range uris {
			msg = strings.ReplaceAll(msg, u, s.uris[u])
		}
	}
	if s.spellings == nil && len(s.values) > 0 {
		seen := map[string]bool{}
		for v := range s.values {
			for _, sp := range spellings(v) {
				if len(sp) >= minLen && !seen[sp] {
					seen[sp] = true
					s.spellings = append(s.spellings, sp)
				}
			}
		}
		sort.Slice(s.spellings, func(i, j int) bool { return len(s.spellings[i]) > len(s.spellings[j]) })
	}
	for _, sp := range s.spellings {
		msg = strings.ReplaceAll(msg, sp, Mask)
	}
	return msg
}

// spellings are the forms v takes in text: as is, URL-escaped (a query,
// a path, a form body), inside JSON and Go quotes.
func spellings(v string) []string {
	unquote := func(q string) string { return q[1 : len(q)-1] }
	out := []string{v, url.QueryEscape(v), url.PathEscape(v), unquote(strconv.Quote(v)), unquote(strconv.QuoteToASCII(v))}
	if j, err := json.Marshal(v); err == nil {
		out = append(out, unquote(string(j)))
	}
	return out
}

// Error is err with its message redacted (String). It still answers
// errors.Is and errors.As as err does (its kind, a deadline, a not-found),
// so only the text changes; err itself is returned when nothing was.
func (s *Secrets) Error(err error) error {
	if s == nil || err == nil {
		return err
	}
	msg := s.String(err.Error())
	if msg == err.Error() {
		return err
	}
	return &redacted{msg: msg, err: err}
}

type redacted struct {
	msg string
	err error
}

func (e *redacted) Error() string { return e.msg }

// Unwrap gives what err's chain holds for errors.Is and errors.As; a
// caller printing an unwrapped error would print secrets, which no
// caller here does (they print the error they were given).
func (e *redacted) Unwrap() error { return e.err }
