package acp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	acpsdk "github.com/coder/acp-go-sdk"
)

// MaxMessage bounds one JSON-RPC message from the agent, in bytes; a longer
// one is a protocol error. (The SDK's reader gives up at 10 MiB.)
const MaxMessage = 8 << 20

// ErrMalformed is wrapped by the error of a message from the agent that is
// not JSON-RPC 2.0.
var ErrMalformed = errors.New("acp: malformed message")

// checker sits between the agent's stdout and the SDK's reader: it splits
// the stream into lines, checks that each is a JSON-RPC 2.0 message, and
// passes the good ones on. The first bad one ends the stream for the SDK
// and is kept as the stream's error, so an attempt ends with a protocol
// error instead of the SDK skipping the message with a log line.
type checker struct {
	out  *io.PipeWriter // the SDK reads the other end
	tee  io.Writer      // the transcript and the tail; may be nil
	bar  *barrier       // told of updates and permission requests; may be nil
	buf  []byte
	over bool

	mu  sync.Mutex
	err error
}

func newChecker(tee io.Writer, bar *barrier) (*checker, io.Reader) {
	r, w := io.Pipe()
	return &checker{out: w, tee: tee, bar: bar}, r
}

// Write never fails: the agent's stdout is drained to the end whatever it
// holds, so the agent cannot block on a full pipe.
func (c *checker) Write(p []byte) (int, error) {
	if c.tee != nil {
		c.tee.Write(p)
	}
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			c.add(p)
			break
		}
		c.add(p[:i])
		c.line()
		p = p[i+1:]
	}
	return n, nil
}

func (c *checker) add(p []byte) {
	if c.over {
		return
	}
	if len(c.buf)+len(p) > MaxMessage {
		c.over, c.buf = true, c.buf[:0]
		return
	}
	c.buf = append(c.buf, p...)
}

func (c *checker) line() {
	defer func() { c.buf, c.over = c.buf[:0], false }()
	if c.failed() {
		return
	}
	if c.over {
		c.fail(fmt.Errorf("%w: a message longer than %d bytes", ErrMalformed, MaxMessage))
		return
	}
	line := bytes.TrimSpace(c.buf)
	if len(line) == 0 {
		return
	}
	m, err := parseMessage(line)
	if err != nil {
		c.fail(err)
		return
	}
	if c.bar != nil && m.Method != nil {
		switch {
		case *m.Method == acpsdk.ClientMethodSessionUpdate && len(m.ID) == 0:
			c.bar.update()
		case *m.Method == acpsdk.ClientMethodSessionRequestPermission && len(m.ID) > 0:
			var p struct {
				ToolCall struct {
					ToolCallId acpsdk.ToolCallId `json:"toolCallId"`
				} `json:"toolCall"`
			}
			if json.Unmarshal(m.Params, &p) == nil {
				c.bar.ask(p.ToolCall.ToolCallId)
			}
		}
	}
	c.out.Write(append(line, '\n'))
}

// Close ends the stream for the SDK: at EOF, or at the stream's error.
func (c *checker) Close() {
	if len(bytes.TrimSpace(c.buf)) > 0 && !c.failed() {
		c.line() // a last message without a newline
	}
	c.mu.Lock()
	err := c.err
	c.mu.Unlock()
	c.out.CloseWithError(err)
}

func (c *checker) fail(err error) {
	c.mu.Lock()
	c.err = err
	c.mu.Unlock()
	c.out.CloseWithError(err)
}

func (c *checker) failed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err != nil
}

// Err is the stream's error: the first malformed message, or nil.
func (c *checker) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// message is what every JSON-RPC 2.0 message has: a request or a
// notification has a method, a response an id and a result or an error.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
	Params  json.RawMessage `json:"params"`
}

// checkMessage reports whether line is one JSON-RPC 2.0 message.
func checkMessage(line []byte) error {
	_, err := parseMessage(line)
	return err
}

func parseMessage(line []byte) (message, error) {
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		return m, fmt.Errorf("%w: %v: %s", ErrMalformed, err, clip(line))
	}
	return m, validate(m, line)
}

func validate(m message, line []byte) error {
	switch {
	case m.JSONRPC != "2.0":
		return fmt.Errorf("%w: jsonrpc is %q, want \"2.0\": %s", ErrMalformed, m.JSONRPC, clip(line))
	case m.Method != nil && *m.Method == "":
		return fmt.Errorf("%w: an empty method: %s", ErrMalformed, clip(line))
	case m.Method == nil && (len(m.ID) == 0 || (len(m.Result) == 0 && !present(m.Error))):
		return fmt.Errorf("%w: neither a request nor a response: %s", ErrMalformed, clip(line))
	case len(m.ID) > 0 && !validID(m.ID):
		return fmt.Errorf("%w: an id that is not a string, a number or null: %s", ErrMalformed, clip(line))
	}
	return nil
}

// present reports whether a field was given a value other than null.
func present(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
}

// validID reports whether a JSON-RPC id is a string, a number or null.
func validID(raw json.RawMessage) bool {
	switch c := raw[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return true
	}
	return string(raw) == "null"
}

func clip(b []byte) string {
	const n = 200
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
