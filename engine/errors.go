package engine

import (
	"errors"
	"fmt"
)

// ErrorKind is the stable identifier of a class of rejected cases. Tests
// and reports compare kinds, never message text.
type ErrorKind string

// The three error kinds of the suite.
const (
	// InvalidSpec: the spec is malformed whatever the data (zero stride,
	// two ellipses, length mismatch, too many indices, bad batch_dims, ...).
	InvalidSpec ErrorKind = "invalid_spec"
	// OutOfRange: a position outside the tensor (integer index, shrink
	// index, gather index, tf.slice begin or size).
	OutOfRange ErrorKind = "out_of_range"
	// BadInput: the inputs themselves are unusable (corrupt .npy,
	// unsupported dtype, non-integer index tensor, malformed case file).
	BadInput ErrorKind = "bad_input"
)

// Valid reports whether k is one of the three error kinds.
func (k ErrorKind) Valid() bool {
	return k == InvalidSpec || k == OutOfRange || k == BadInput
}

// Error is an error of a known kind with a human-readable message. An
// error the engine raises names the rule that raised it (see RuleTable);
// an error made with Errorf (by an implementation under test, or while
// reading a case) names none.
type Error struct {
	Kind    ErrorKind
	Message string
	// Rule is the rule that raised the error, "" if none is known.
	Rule RuleID
}

func (e *Error) Error() string { return string(e.Kind) + ": " + e.Message }

// Errorf returns an *Error of the given kind with a formatted message,
// naming no rule. The engine raises its errors with RuleID.Errorf.
func Errorf(kind ErrorKind, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// KindOf returns the kind of err if it is (or wraps) an *Error, and ""
// otherwise.
func KindOf(err error) ErrorKind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return ""
}

// RuleOf returns the rule that raised err if it is (or wraps) an *Error
// that names one, and "" otherwise.
func RuleOf(err error) RuleID {
	var e *Error
	if errors.As(err, &e) {
		return e.Rule
	}
	return ""
}
