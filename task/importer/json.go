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
			seen := map[string]bool{}
			for p.dec.More() {
				kat := p.at(p.start())
				ktok, err := p.dec.Token()
				if err != nil {
					return nil, p.syntax(err, field)
				}
				key, _ := ktok.(string) // the decoder allows only string keys here
				kf := join(field, key)
				if seen[key] {
					return nil, errorf(p.file, kat, kf, "duplicate key")
				}
				e, err := p.value(depth+1, kf)
				if err != nil {
					return nil, err
				}
				seen[key] = true
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

// jsonReader reads typed fields out of a decoded file. The peers read their
// files loosely, so a field of the wrong type is a warning and reads as
// absent, and the rest of the file is read.
type jsonReader struct {
	file string
	w    *warnings
}

func (r *jsonReader) warnf(v *jsonValue, field, format string, args ...any) {
	r.w.add(r.file, v.at, field, format, args...)
}

// field returns parent's value at key, treating null as absent.
func (r *jsonReader) field(parent *jsonValue, key string) *jsonValue {
	if parent == nil {
		return nil
	}
	v := parent.get(key)
	if v == nil || v.kind == jsonNull {
		return nil
	}
	return v
}

// object returns the value at key as an object, or nil.
func (r *jsonReader) object(parent *jsonValue, key, field string) *jsonValue {
	v := r.field(parent, key)
	if v == nil {
		return nil
	}
	if v.kind != jsonObject {
		r.warnf(v, field, "expected an object, got %s; not imported", v.describe())
		return nil
	}
	return v
}

// list returns the value at key as a list; a single value is a list of one.
func (r *jsonReader) list(parent *jsonValue, key, field string) []*jsonValue {
	v := r.field(parent, key)
	switch {
	case v == nil:
		return nil
	case v.kind == jsonArray:
		return v.elems
	}
	return []*jsonValue{v}
}

// text returns v as text: a string, or a number's literal; anything else
// is a warning and "".
func (r *jsonReader) text(v *jsonValue, field string) string {
	switch {
	case v == nil:
		return ""
	case v.kind == jsonString, v.kind == jsonNumber:
		return v.str
	case v.kind == jsonBool:
		return strconv.FormatBool(v.b)
	}
	r.warnf(v, field, "expected a string, got %s; not imported", v.describe())
	return ""
}

// str returns the text at key.
func (r *jsonReader) str(parent *jsonValue, key, field string) string {
	return r.text(r.field(parent, key), field)
}

// strings returns the texts at key: a list of strings or one string. An
// element that is an object gives its "path", "rule" or "text" field.
func (r *jsonReader) strings(parent *jsonValue, key, field string) []string {
	var out []string
	v := r.field(parent, key)
	for i, e := range r.list(parent, key, field) {
		f := field
		if v.kind == jsonArray {
			f = fmt.Sprintf("%s[%d]", field, i)
		}
		if e.kind == jsonObject {
			for _, k := range []string{"path", "rule", "text", "name", "id"} {
				if s := r.field(e, k); s != nil {
					e = s
					break
				}
			}
		}
		if s := strings.TrimSpace(r.text(e, f)); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// key returns a value that may be an integer or a string (a phase or step
// number), as a string; "" with a warning for anything else.
func (r *jsonReader) key(parent *jsonValue, key, field string) string {
	v := r.field(parent, key)
	if v == nil {
		return ""
	}
	switch v.kind {
	case jsonString:
		return strings.TrimSpace(v.str)
	case jsonNumber:
		if n, err := strconv.ParseInt(v.str, 10, 64); err == nil {
			return strconv.FormatInt(n, 10)
		}
		return v.str
	}
	r.warnf(v, field, "expected an integer or a string, got %s; not imported", v.describe())
	return ""
}

// unknown warns of the keys of obj that are not in known.
func (r *jsonReader) unknown(obj *jsonValue, field string, known ...string) {
	if obj == nil {
		return
	}
	for i, k := range obj.keys {
		if !slices.Contains(known, k) && obj.vals[i].kind != jsonNull {
			r.warnf(obj.vals[i], join(field, k), "not a field harnish reads; not imported")
		}
	}
}
