package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/harnish/harnish/task/internal/quote"
)

// The foreign JSON sources are decoded into a tree that remembers where each
// value starts, so that a wrong type can be reported with line and column.

type jsonKind int

const (
	jsonNull jsonKind = iota
	jsonBool
	jsonNumber
	jsonString
	jsonArray
	jsonObject
)

// maxDepth bounds nesting; no real source comes near it.
const maxDepth = 200

type jsonValue struct {
	kind  jsonKind
	at    pos
	str   string // a string's value, a number's literal
	b     bool
	keys  []string // an object's keys, in order
	vals  []*jsonValue
	elems []*jsonValue // an array's elements
}

// get returns the value of key in an object, or nil.
func (v *jsonValue) get(key string) *jsonValue {
	for i, k := range v.keys {
		if k == key {
			return v.vals[i]
		}
	}
	return nil
}

// describe names what v holds, for error messages.
func (v *jsonValue) describe() string {
	switch v.kind {
	case jsonNull:
		return "null"
	case jsonBool:
		return "boolean " + strconv.FormatBool(v.b)
	case jsonNumber:
		return "number " + quote.Bare(v.str)
	case jsonString:
		return "string " + quote.String(v.str)
	case jsonArray:
		return "a list"
	}
	return "an object"
}

type jsonParser struct {
	file string
	data []byte
	skip int // bytes of a leading byte order mark, not seen by the decoder
	dec  *json.Decoder
	nl   []int // offsets of the newlines, for positions in O(log n)
}

// parseJSON decodes data, which must hold exactly one JSON value. Duplicate
// keys are errors: a machine-written file with them is corrupt.
func parseJSON(file string, data []byte) (*jsonValue, error) {
	p := &jsonParser{file: file, data: data}
	for i, c := range data {
		if c == '\n' {
			p.nl = append(p.nl, i)
		}
	}
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		p.skip = 3
	}
	p.dec = json.NewDecoder(bytes.NewReader(data[p.skip:]))
	p.dec.UseNumber()
	v, err := p.value(0, "")
	if err != nil {
		return nil, err
	}
	at := p.at(p.start())
	if _, err := p.dec.Token(); err != io.EOF {
		return nil, errorf(file, at, "", "unexpected data after the JSON value")
	}
	return v, nil
}

// start returns the offset where the next token begins.
func (p *jsonParser) start() int64 { return p.skipping(" \t\r\n,:") }

// skipping returns the offset of the next byte after the last token that is
// not one of chars.
func (p *jsonParser) skipping(chars string) int64 {
	off := p.dec.InputOffset() + int64(p.skip)
	for off < int64(len(p.data)) && strings.IndexByte(chars, p.data[off]) >= 0 {
		off++
	}
	return off
}

func (p *jsonParser) at(off int64) pos {
	o := int(min(max(off, 0), int64(len(p.data))))
	n, _ := slices.BinarySearch(p.nl, o) // newlines before o
	start := 0
	if n > 0 {
		start = p.nl[n-1] + 1
	}
	return pos{line: n + 1, col: o - start + 1}
}

// syntax reports a decoder error at the start of the token it was reading.
func (p *jsonParser) syntax(err error, field string) error {
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &syn):
		// The offending byte follows the last good token; separators count.
		return errorf(p.file, p.at(p.skipping(" \t\r\n")), field, "%s", strings.TrimPrefix(syn.Error(), "json: "))
	case errors.Is(err, io.EOF) && field == "" && p.dec.InputOffset() == 0:
		return errorf(p.file, pos{}, "", "empty file")
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return errorf(p.file, p.at(int64(len(p.data))), field, "unexpected end of JSON input")
	}
	return errorf(p.file, p.at(p.start()), field, "%s", strings.TrimPrefix(err.Error(), "json: "))
}

func (p *jsonParser) value(depth int, field string) (*jsonValue, error) {
	at := p.at(p.start())
	tok, err := p.dec.Token()
	if err != nil {
		return nil, p.syntax(err, field)
	}
	v := &jsonValue{at: at}
	switch t := tok.(type) {
	case nil:
		v.kind = jsonNull
	case bool:
		v.kind, v.b = jsonBool, t
	case json.Number:
		v.kind, v.str = jsonNumber, string(t)
	case string:
		v.kind, v.str = jsonString, t
	case json.Delim:
		if depth >= maxDepth {
			return nil, errorf(p.file, at, field, "nested more than %d levels deep", maxDepth)
		}
		switch t {
		case ']', '}':
			return nil, errorf(p.file, at, field, "unexpected %q", rune(t))
		case '[':
			v.kind = jsonArray
			for i := 0; p.dec.More(); i++ {
				e, err := p.value(depth+1, fmt.Sprintf("%s[%d]", field, i))
				if err != nil {
					return nil, err
				}
				v.elems = append(v.elems, e)
			}
		default:
			v.kind = jsonObject
			for p.dec.More() {
				kat := p.at(p.start())
				ktok, err := p.dec.Token()
				if err != nil {
					return nil, p.syntax(err, field)
				}
				key, _ := ktok.(string) // the decoder allows only string keys here
				kf := join(field, key)
				if v.get(key) != nil {
					return nil, errorf(p.file, kat, kf, "duplicate key")
				}
				e, err := p.value(depth+1, kf)
				if err != nil {
					return nil, err
				}
				v.keys = append(v.keys, key)
				v.vals = append(v.vals, e)
			}
		}
		if _, err := p.dec.Token(); err != nil { // the closing delimiter
			return nil, p.syntax(err, field)
		}
	}
	return v, nil
}

// join appends a key to a field path, cut short when long: the path is
// quoted in errors.
func join(field, key string) string {
	if field == "" {
		return quote.Bare(key)
	}
	return field + "." + quote.Bare(key)
}

// jsonReader reads typed fields out of a decoded file, remembering the first
// problem so callers can read a whole object and check once.
type jsonReader struct {
	file string
	err  error
}

func (r *jsonReader) fail(v *jsonValue, field, format string, args ...any) {
	if r.err == nil {
		r.err = errorf(r.file, v.at, field, format, args...)
	}
}

// object returns v's value as an object, or nil after recording a problem.
// A missing or null value is allowed when !required.
func (r *jsonReader) object(parent *jsonValue, key, field string, required bool) *jsonValue {
	v := r.field(parent, key, field, required)
	if v == nil {
		return nil
	}
	if v.kind != jsonObject {
		r.fail(v, field, "expected an object, got %s", v.describe())
		return nil
	}
	return v
}

// field returns parent's value at key, treating null as absent, and records a
// problem when a required one is absent.
func (r *jsonReader) field(parent *jsonValue, key, field string, required bool) *jsonValue {
	v := parent.get(key)
	if v == nil || v.kind == jsonNull {
		if required {
			at := parent
			if v != nil {
				at = v
			}
			r.fail(at, field, "required")
		}
		return nil
	}
	return v
}

func (r *jsonReader) list(parent *jsonValue, key, field string, required bool) []*jsonValue {
	v := r.field(parent, key, field, required)
	if v == nil {
		return nil
	}
	if v.kind != jsonArray {
		r.fail(v, field, "expected a list, got %s", v.describe())
		return nil
	}
	return v.elems
}

// str returns a string field; a required one must not be empty.
func (r *jsonReader) str(parent *jsonValue, key, field string, required bool) string {
	v := r.field(parent, key, field, required)
	if v == nil {
		return ""
	}
	if v.kind != jsonString {
		r.fail(v, field, "expected a string, got %s", v.describe())
		return ""
	}
	if required && strings.TrimSpace(v.str) == "" {
		r.fail(v, field, "required: must not be empty")
	}
	return v.str
}

func (r *jsonReader) strings(parent *jsonValue, key, field string) []string {
	var out []string
	for i, e := range r.list(parent, key, field, false) {
		if e.kind != jsonString {
			r.fail(e, fmt.Sprintf("%s[%d]", field, i), "expected a string, got %s", e.describe())
			return nil
		}
		out = append(out, e.str)
	}
	return out
}

// key returns a value that may be an integer or a string (a phase or step
// number), as a string; float and other kinds are problems.
func (r *jsonReader) key(parent *jsonValue, key, field string, required bool) (string, *jsonValue) {
	v := r.field(parent, key, field, required)
	if v == nil {
		return "", nil
	}
	switch v.kind {
	case jsonString:
		if strings.TrimSpace(v.str) == "" {
			r.fail(v, field, "must not be empty")
		}
		return v.str, v
	case jsonNumber:
		if n, err := strconv.ParseInt(v.str, 10, 64); err == nil {
			return strconv.FormatInt(n, 10), v
		}
	}
	r.fail(v, field, "expected an integer or a string, got %s", v.describe())
	return "", nil
}
