package hooksock

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Request is one pre-tool-use call as the hook process resolved it from
// its command line and environment: what package hook's Request holds.
type Request struct {
	Agent    string // --agent
	PlanFile string // --plan: empty or an absolute path
	TaskID   string // $HARNISH_TASK_ID
	WorkDir  string // $HARNISH_WORKDIR: an absolute path
	HookLog  string // $HARNISH_HOOK_LOG: empty or an absolute path
	Input    []byte // the payload, at most MaxInput bytes
}

// Answer is the answer to a [Request]: the hook's exit status and what it
// writes to standard error.
type Answer struct {
	Code    int
	Message string
}

// Sizes the decoders accept; anything larger is an error, so a peer cannot
// make the other side allocate without bound.
const (
	// MaxInput is the most payload a request carries: one byte more than
	// the hook reads, so the judge sees a payload too large, as it would
	// have read it from standard input.
	MaxInput = 16<<20 + 1
	// MaxField bounds the other fields of a request.
	MaxField = 64 << 10
	// MaxMessage bounds an answer's message.
	MaxMessage = 4 << 20
)

// The first bytes of each message: a protocol of another version is
// refused, not misread.
const (
	requestMagic = "HHQ1"
	answerMagic  = "HHA1"
)

// ErrProtocol is a message that does not decode.
var ErrProtocol = errors.New("hooksock: malformed message")

// AppendRequest appends the encoding of r to b.
func AppendRequest(b []byte, r *Request) []byte {
	b = append(b, requestMagic...)
	for _, f := range [...][]byte{[]byte(r.Agent), []byte(r.PlanFile), []byte(r.TaskID), []byte(r.WorkDir), []byte(r.HookLog), r.Input} {
		b = binary.BigEndian.AppendUint32(b, uint32(len(f)))
		b = append(b, f...)
	}
	return b
}

// ReadRequest decodes one request from rd.
func ReadRequest(rd io.Reader) (*Request, error) {
	if err := readMagic(rd, requestMagic); err != nil {
		return nil, err
	}
	var r Request
	for i, dst := range [...]*string{&r.Agent, &r.PlanFile, &r.TaskID, &r.WorkDir, &r.HookLog} {
		f, err := readField(rd, MaxField)
		if err != nil {
			return nil, fmt.Errorf("%w: field %d: %w", ErrProtocol, i+1, err)
		}
		*dst = string(f)
	}
	in, err := readField(rd, MaxInput)
	if err != nil {
		return nil, fmt.Errorf("%w: input: %w", ErrProtocol, err)
	}
	r.Input = in
	return &r, nil
}

// AppendAnswer appends the encoding of a to b.
func AppendAnswer(b []byte, a *Answer) []byte {
	b = append(b, answerMagic...)
	b = binary.BigEndian.AppendUint32(b, uint32(int32(a.Code)))
	b = binary.BigEndian.AppendUint32(b, uint32(len(a.Message)))
	return append(b, a.Message...)
}

// ReadAnswer decodes one answer from rd.
func ReadAnswer(rd io.Reader) (*Answer, error) {
	if err := readMagic(rd, answerMagic); err != nil {
		return nil, err
	}
	var code [4]byte
	if _, err := io.ReadFull(rd, code[:]); err != nil {
		return nil, fmt.Errorf("%w: exit status: %w", ErrProtocol, err)
	}
	msg, err := readField(rd, MaxMessage)
	if err != nil {
		return nil, fmt.Errorf("%w: message: %w", ErrProtocol, err)
	}
	return &Answer{Code: int(int32(binary.BigEndian.Uint32(code[:]))), Message: string(msg)}, nil
}

func readMagic(rd io.Reader, want string) error {
	var got [4]byte
	if _, err := io.ReadFull(rd, got[:]); err != nil {
		return fmt.Errorf("%w: %w", ErrProtocol, err)
	}
	if string(got[:]) != want {
		return fmt.Errorf("%w: begins %q, want %q", ErrProtocol, got[:], want)
	}
	return nil
}

// readField reads a length and that many bytes, refusing a length over
// limit before allocating it.
func readField(rd io.Reader, limit int) ([]byte, error) {
	var n [4]byte
	if _, err := io.ReadFull(rd, n[:]); err != nil {
		return nil, err
	}
	size := binary.BigEndian.Uint32(n[:])
	if uint64(size) > uint64(limit) {
		return nil, fmt.Errorf("%d bytes, more than %d", size, limit)
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(rd, b); err != nil {
		return nil, err
	}
	return b, nil
}
