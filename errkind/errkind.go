// Package errkind gives floe's errors a kind: what went wrong, as opposed
// to the message, which says where and with what. Callers that must act on
// a failure (the C API picking a floe_status, a CLI choosing an exit path, a
// retry loop) ask for the kind with errors.Is(err, errkind.Unsupported) or
// Of(err), never by reading the message.
//
// Policy: the kind is decided where the error is made, by the code that
// knows what failed (a parser that meets an unknown codec says Unsupported;
// a binder that meets an unknown column says InvalidArgument).
// Every layer above wraps with fmt.Errorf("...: %w", err), which keeps the
// kind. Attaching a kind never changes the message: Errorf, New and Wrap
// give exactly the text fmt.Errorf, errors.New and err would.
//
// Errors without a kind are left to the caller's judgement (the C API
// falls back on what the call was doing). Default attaches a kind only to
// errors that have none, for parsers' entry points that know a failure is
// bad data unless something deeper said otherwise.
//
// The package imports only the standard library, so every floe package,
// the lowest included, may use it.
package errkind

import (
	"errors"
	"fmt"
)

// Kind is what went wrong. A Kind is an error, so that errors.Is(err, kind)
// asks whether err carries it.
type Kind uint8

const (
	// None is the kind of an error that carries none (and of nil).
	None Kind = iota
	// NotFound: the table, a file, a snapshot, a ref or a time asked for
	// does not exist. (An unknown column name is InvalidArgument: the
	// caller misspelt it, as include/floe.h says.)
	NotFound
	// InvalidArgument: the caller asked for something that does not make
	// sense: a malformed filter, option, value or schema.
	InvalidArgument
	// Conflict: another writer got there first (a commit found what it
	// replaces changed, or a table to create exists). Nothing was done.
	Conflict
	// CommitStateUnknown: a commit may or may not have been published; the
	// files it added must be kept.
	CommitStateUnknown
	// Unsupported: valid input that floe does not handle (a codec, a
	// storage scheme, a feature of the format).
	Unsupported
	// Corrupt: a metadata, manifest, Puffin or data file is malformed or
	// not what the format says it must be.
	Corrupt
	// IO: reading or writing storage failed.
	IO
	// Unauthorized: a catalog or store refused the caller's credentials
	// (HTTP 401 and 403): no retry will help until they change.
	Unauthorized
)

var names = [...]string{
	None:               "no kind",
	NotFound:           "not found",
	InvalidArgument:    "invalid argument",
	Conflict:           "conflict",
	CommitStateUnknown: "commit state unknown",
	Unsupported:        "unsupported",
	Corrupt:            "corrupt",
	IO:                 "I/O error",
	Unauthorized:       "unauthorized",
}

// Error names the kind: a Kind is an error so that it can sit in an
// error's chain and be the target of errors.Is.
func (k Kind) Error() string {
	if int(k) < len(names) {
		return names[k]
	}
	return fmt.Sprintf("errkind.Kind(%d)", uint8(k))
}

// String is Error.
func (k Kind) String() string { return k.Error() }

// kinded is an error with a kind. Its message is its wrapped error's; its
// chain holds the kind first, then the wrapped error, so that errors.Is
// finds the kind by equality and Of finds the outermost kind first.
type kinded struct {
	kind Kind
	err  error
}

func (e *kinded) Error() string   { return e.err.Error() }
func (e *kinded) Unwrap() []error { return []error{e.kind, e.err} }

// Wrap returns err with kind attached and the same message; nil stays nil
// and None attaches nothing. errors.Is and errors.As see through it to err.
func Wrap(kind Kind, err error) error {
	if err == nil || kind == None {
		return err
	}
	return &kinded{kind: kind, err: err}
}

// Default is Wrap when err has no kind yet; an error that has one keeps it.
func Default(kind Kind, err error) error {
	if Of(err) != None {
		return err
	}
	return Wrap(kind, err)
}

// Errorf is fmt.Errorf (with %w) whose result carries kind.
func Errorf(kind Kind, format string, args ...any) error {
	return Wrap(kind, fmt.Errorf(format, args...))
}

// New is errors.New whose result carries kind; for sentinels, which stay
// comparable with errors.Is by identity.
func New(kind Kind, text string) error {
	return Wrap(kind, errors.New(text))
}

// Of returns the first kind found in err's chain (the outermost, in the
// order errors.As searches), or None. A typed error gives itself a kind by
// having it in its chain: func (e *MyError) Unwrap() error { return errkind.NotFound }.
func Of(err error) Kind {
	var k Kind
	if errors.As(err, &k) {
		return k
	}
	return None
}
