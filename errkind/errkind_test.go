package errkind_test

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/floedb/floe/errkind"
)

func TestKindSurvivesWrappingAndKeepsTheMessage(t *testing.T) {
	base := errkind.Errorf(errkind.Unsupported, "codec %s is not supported", "LZO")
	if base.Error() != "codec LZO is not supported" {
		t.Fatalf("message %q", base.Error())
	}
	wrapped := fmt.Errorf("read column a: %w", fmt.Errorf("row group 0: %w", base))
	if !errors.Is(wrapped, errkind.Unsupported) {
		t.Fatal("the kind is lost by %w wrapping")
	}
	if errors.Is(wrapped, errkind.Corrupt) || errors.Is(wrapped, errkind.None) {
		t.Fatal("an error matches a kind it does not carry")
	}
	if got := errkind.Of(wrapped); got != errkind.Unsupported {
		t.Fatalf("Of = %v", got)
	}
	if wrapped.Error() != "read column a: row group 0: codec LZO is not supported" {
		t.Fatalf("message %q", wrapped.Error())
	}
}

func TestWrapKeepsTheChain(t *testing.T) {
	err := errkind.Wrap(errkind.NotFound, fmt.Errorf("open x: %w", fs.ErrNotExist))
	if !errors.Is(err, fs.ErrNotExist) || !errors.Is(err, errkind.NotFound) {
		t.Fatal("Wrap hides the wrapped error or its kind")
	}
	if err.Error() != "open x: file does not exist" {
		t.Fatalf("message %q", err.Error())
	}
	var pe *fs.PathError
	pathErr := errkind.Wrap(errkind.IO, &fs.PathError{Op: "read", Path: "/p", Err: fs.ErrPermission})
	if !errors.As(pathErr, &pe) || pe.Path != "/p" {
		t.Fatal("errors.As does not see through Wrap")
	}
	if errkind.Wrap(errkind.IO, nil) != nil || errkind.Default(errkind.IO, nil) != nil {
		t.Fatal("a nil error gained a kind")
	}
	plain := errors.New("x")
	if errkind.Wrap(errkind.None, plain) != plain {
		t.Fatal("None attached something")
	}
}

func TestOfIsTheOutermostKind(t *testing.T) {
	inner := errkind.Errorf(errkind.Unsupported, "format-version 9")
	outer := errkind.Wrap(errkind.Corrupt, fmt.Errorf("metadata: %w", inner))
	if errkind.Of(outer) != errkind.Corrupt {
		t.Fatalf("Of = %v, want the outermost kind", errkind.Of(outer))
	}
	if !errors.Is(outer, errkind.Unsupported) {
		t.Fatal("the inner kind is not seen by errors.Is")
	}
	if errkind.Of(errors.New("no kind")) != errkind.None || errkind.Of(nil) != errkind.None {
		t.Fatal("an error without a kind has one")
	}
	joined := errors.Join(errors.New("a"), errkind.Errorf(errkind.Conflict, "b"))
	if errkind.Of(joined) != errkind.Conflict {
		t.Fatal("a joined error's kind is not found")
	}
}

func TestDefaultKeepsAnExistingKind(t *testing.T) {
	unsupported := fmt.Errorf("parse: %w", errkind.Errorf(errkind.Unsupported, "format-version 9"))
	if got := errkind.Of(errkind.Default(errkind.Corrupt, unsupported)); got != errkind.Unsupported {
		t.Fatalf("Default replaced the kind: %v", got)
	}
	plain := errors.New("unexpected end of JSON input")
	got := errkind.Default(errkind.Corrupt, plain)
	if errkind.Of(got) != errkind.Corrupt || got.Error() != plain.Error() || !errors.Is(got, plain) {
		t.Fatalf("Default on a plain error: kind %v, message %q", errkind.Of(got), got.Error())
	}
}

func TestSentinelsStayComparable(t *testing.T) {
	errA := errkind.New(errkind.Conflict, "commit conflict")
	errB := errkind.New(errkind.Conflict, "commit conflict")
	err := fmt.Errorf("append: %w", errA)
	if !errors.Is(err, errA) || errors.Is(err, errB) {
		t.Fatal("sentinels with a kind are not told apart by identity")
	}
	if !errors.Is(err, errkind.Conflict) || err.Error() != "append: commit conflict" {
		t.Fatalf("sentinel: kind lost or message %q", err.Error())
	}
}

// typed is a typed error that gives itself a kind.
type typed struct{ what string }

func (e *typed) Error() string { return "bad " + e.what }
func (e *typed) Unwrap() error { return errkind.InvalidArgument }

func TestTypedErrorsCarryAKind(t *testing.T) {
	err := fmt.Errorf("filter: %w", &typed{"token"})
	var te *typed
	if !errors.Is(err, errkind.InvalidArgument) || errkind.Of(err) != errkind.InvalidArgument || !errors.As(err, &te) {
		t.Fatal("a typed error's kind or type is not found")
	}
}

func TestKindNames(t *testing.T) {
	seen := map[string]bool{}
	for k := errkind.None; k <= errkind.Unauthorized; k++ {
		name := k.Error()
		if name == "" || seen[name] {
			t.Fatalf("kind %d has name %q", k, name)
		}
		seen[name] = true
	}
	if errkind.Kind(200).Error() != "errkind.Kind(200)" {
		t.Fatal(errkind.Kind(200).Error())
	}
}
