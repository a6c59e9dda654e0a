package asset

import (
	"errors"
	"fmt"
)

// Sentinel errors of a [Store], for errors.Is.
var (
	// ErrInvalid: the store refuses an asset or a request (see
	// [Asset.Validate], [PurgeRequest.IsZero]).
	ErrInvalid = errors.New("asset: invalid")
	// ErrCorrupt: stored data does not decode. Returned as a [*CorruptError].
	ErrCorrupt = errors.New("asset: corrupt store")
	// ErrSchema: stored data, or an asset, has a schema version newer than
	// [SchemaVersion].
	ErrSchema = errors.New("asset: unsupported schema version")
	// ErrUnsupported: the store does not implement the operation.
	ErrUnsupported = errors.New("asset: unsupported operation")
)

// CorruptError locates stored data that does not decode. The store leaves
// the file as it is: nothing is overwritten or rebuilt around it. It matches
// [ErrCorrupt] with errors.Is.
type CorruptError struct {
	// Path is the file.
	Path string
	// Line is 1-based; 0 when the whole file is at fault.
	Line int
	// Err is the decoding error.
	Err error
}

// Error returns "asset: corrupt store: PATH:LINE: CAUSE".
func (e *CorruptError) Error() string {
	msg := ErrCorrupt.Error() + ": " + e.Path
	if e.Line > 0 {
		msg += fmt.Sprintf(":%d", e.Line)
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the decoding error.
func (e *CorruptError) Unwrap() error { return e.Err }

// Is reports whether target is [ErrCorrupt].
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }
