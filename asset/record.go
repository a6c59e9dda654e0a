package asset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A record is one line of an assets file: the JSON object of an [Asset]
// followed by '\n'. The format is the harnish engine's
// (harnish-assets.jsonl), so a history kept by the engine opens as is:
//
//   - "date" and "last_accessed_at" are RFC 3339 times; a date alone
//     ("2006-01-02", as the engine writes "date") reads as midnight UTC.
//   - "schema_version" is an integer; the engine's strings ("0.0.2") read as
//     version 1, the version this package writes.
//   - "stability" is a string; a number reads as its decimal text.
//   - "last_accessed" (the name before "last_accessed_at") is read too.
//   - any other field is kept in [Asset.Extra] and written back.

// wireRecord is the JSON shape of a record as read.
type wireRecord struct {
	Type          Type        `json:"type"`
	Slug          string      `json:"slug"`
	Title         string      `json:"title"`
	Tags          []string    `json:"tags"`
	Date          flexTime    `json:"date"`
	Scope         Scope       `json:"scope"`
	Body          string      `json:"body"`
	Context       string      `json:"context"`
	Session       string      `json:"session"`
	SchemaVersion flexVersion `json:"schema_version"`
	LastAccessed  flexTime    `json:"last_accessed_at"`
	LastAccessedV flexTime    `json:"last_accessed"`
	AccessCount   int         `json:"access_count"`
	Resolved      *bool       `json:"resolved"`
	Stability     flexString  `json:"stability"`
	Level         string      `json:"level"`
	Confidence    string      `json:"confidence"`
}

// knownKeys are the JSON keys of wireRecord; any other key goes to Extra.
var knownKeys = []string{
	"type", "slug", "title", "tags", "date", "scope", "body", "context", "session",
	"schema_version", "last_accessed_at", "last_accessed", "access_count",
	"resolved", "stability", "level", "confidence",
}

// wireOut is the JSON shape of a record as written.
type wireOut struct {
	Type          Type      `json:"type"`
	Slug          string    `json:"slug"`
	Title         string    `json:"title"`
	Tags          []string  `json:"tags,omitempty"`
	Date          time.Time `json:"date,omitzero"`
	Scope         Scope     `json:"scope,omitempty"`
	Body          string    `json:"body,omitempty"`
	Context       string    `json:"context,omitempty"`
	Session       string    `json:"session,omitempty"`
	SchemaVersion int       `json:"schema_version,omitempty"`
	LastAccessed  time.Time `json:"last_accessed_at,omitzero"`
	AccessCount   int       `json:"access_count,omitempty"`
	Resolved      *bool     `json:"resolved,omitempty"`
	Stability     string    `json:"stability,omitempty"`
	Level         string    `json:"level,omitempty"`
	Confidence    string    `json:"confidence,omitempty"`
}

// MarshalJSON writes a as a record: its known fields, then the fields of
// Extra sorted by key. An Extra key that names a known field is not written
// (the field is); an Extra value that is not valid JSON is an error.
func (a Asset) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(wireOut{
		Type: a.Type, Slug: a.Slug, Title: a.Title, Tags: a.Tags, Date: a.Date,
		Scope: a.Scope, Body: a.Body, Context: a.Context, Session: a.Session,
		SchemaVersion: a.SchemaVersion, LastAccessed: a.LastAccessed,
		AccessCount: a.AccessCount, Resolved: a.Resolved, Stability: a.Stability,
		Level: a.Level, Confidence: a.Confidence,
	})
	if err != nil || len(a.Extra) == 0 {
		return b, err
	}
	keys := make([]string, 0, len(a.Extra))
	for k := range a.Extra {
		if !isKnownKey(k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	b = b[:len(b)-1] // drop '}'
	for _, k := range keys {
		v := a.Extra[k]
		if !json.Valid(v) {
			return nil, fmt.Errorf("asset: extra field %q is not valid JSON", k)
		}
		kb, _ := json.Marshal(k)
		b = append(b, ',')
		b = append(b, kb...)
		b = append(b, ':')
		b = append(b, bytes.TrimSpace(v)...)
	}
	return append(b, '}'), nil
}

// UnmarshalJSON reads a record into a, keeping unknown fields in Extra. It
// checks the JSON, not the asset: see [Asset.Validate].
func (a *Asset) UnmarshalJSON(b []byte) error {
	got, err := decodeRecord(b)
	if err != nil {
		return err
	}
	*a = *got
	return nil
}

// decodeRecord decodes one record without validating the asset.
func decodeRecord(line []byte) (*Asset, error) {
	trimmed := bytes.TrimLeft(line, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, errors.New("asset: record is not a JSON object")
	}
	var w wireRecord
	if err := json.Unmarshal(line, &w); err != nil {
		return nil, fmt.Errorf("asset: %w", err)
	}
	if len(w.Tags) == 0 {
		w.Tags = nil // "tags":[] and no tags are the same asset
	}
	last := w.LastAccessed.t
	if last.IsZero() {
		last = w.LastAccessedV.t
	}
	a := &Asset{
		Type: w.Type, Slug: w.Slug, Title: w.Title, Tags: w.Tags, Date: w.Date.t,
		Scope: w.Scope, Body: w.Body, Context: w.Context, Session: w.Session,
		SchemaVersion: int(w.SchemaVersion), LastAccessed: last,
		AccessCount: w.AccessCount, Resolved: w.Resolved, Stability: string(w.Stability),
		Level: w.Level, Confidence: w.Confidence,
	}
	extra, err := unknownFields(trimmed)
	if err != nil {
		return nil, err
	}
	a.Extra = extra
	return a, nil
}

// isKnownKey reports whether k names a known field. encoding/json matches
// keys without regard to case, so this does too.
func isKnownKey(k string) bool {
	for _, known := range knownKeys {
		if strings.EqualFold(k, known) {
			return true
		}
	}
	return false
}

// unknownFields returns the members of the JSON object obj whose keys are not
// known fields, or nil if there are none. obj is valid JSON, checked by
// json.Unmarshal; the scan still guards every index.
func unknownFields(obj []byte) (map[string]json.RawMessage, error) {
	bad := errors.New("asset: record is not a JSON object")
	i := skipSpace(obj, 1)
	var m map[string]json.RawMessage
	for i < len(obj) && obj[i] != '}' {
		ks := i
		i = skipString(obj, i)
		if i < 0 {
			return nil, bad
		}
		key := obj[ks:i]
		i = skipSpace(obj, i)
		if i >= len(obj) || obj[i] != ':' {
			return nil, bad
		}
		i = skipSpace(obj, i+1)
		vs := i
		i = skipValue(obj, i)
		if i < 0 {
			return nil, bad
		}
		if k, ok := unknownKey(key); ok {
			if m == nil {
				m = make(map[string]json.RawMessage)
			}
			m[k] = bytes.Clone(obj[vs:i])
		}
		i = skipSpace(obj, i)
		if i < len(obj) && obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
	}
	return m, nil
}

// unknownKey returns the key of the quoted JSON string q and whether it is
// unknown.
func unknownKey(q []byte) (string, bool) {
	switch string(q[1 : len(q)-1]) { // the common case: known, exact, unescaped
	case "type", "slug", "title", "tags", "date", "scope", "body", "context", "session",
		"schema_version", "last_accessed_at", "last_accessed", "access_count",
		"resolved", "stability", "level", "confidence":
		return "", false
	}
	var k string
	if err := json.Unmarshal(q, &k); err != nil {
		return "", false
	}
	return k, !isKnownKey(k)
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// skipString returns the index after the JSON string starting at b[i], or -1.
func skipString(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// skipValue returns the index after the JSON value starting at b[i], or -1.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				if i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	}
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i
		}
		i++
	}
	return i
}

// flexTime reads an RFC 3339 time or a date alone.
type flexTime struct{ t time.Time }

func (f *flexTime) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	s, err := strconv.Unquote(string(b))
	if err != nil || (len(b) > 0 && b[0] != '"') {
		return fmt.Errorf("time %s is not a string", b)
	}
	if s == "" {
		return nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		f.t = t
		return nil
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return fmt.Errorf("time %q is neither RFC 3339 nor a date", s)
	}
	f.t = t
	return nil
}

// flexVersion reads an integer schema version or the engine's "0.x.y".
type flexVersion int

func (v *flexVersion) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		s, err := strconv.Unquote(string(b))
		if err != nil || !strings.HasPrefix(s, "0.") {
			return fmt.Errorf("schema version %s is not understood", b)
		}
		*v = 1
		return nil
	}
	n, err := strconv.Atoi(string(b))
	if err != nil {
		return fmt.Errorf("schema version %s is not an integer", b)
	}
	*v = flexVersion(n)
	return nil
}

// flexString reads a string or a number, as its text.
type flexString string

func (s *flexString) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var str string
		if err := json.Unmarshal(b, &str); err != nil {
			return err
		}
		*s = flexString(str)
		return nil
	}
	if _, err := strconv.ParseFloat(string(b), 64); err != nil {
		return fmt.Errorf("%s is neither a string nor a number", b)
	}
	*s = flexString(b)
	return nil
}

var errTorn = errors.New("torn last line (no trailing newline)")

// Decoder reads the records of an assets file strictly: every line must be a
// record of a valid asset (see [Asset.Validate]) with a slug, and the last
// line must end in '\n'. A blank line is skipped. Anything else is a
// [*CorruptError] naming the file and the line; the Decoder stops there.
type Decoder struct {
	r    *bufio.Reader
	name string
	line int
	err  error
}

// NewDecoder returns a Decoder reading r; name is the file name its errors
// give.
func NewDecoder(r io.Reader, name string) *Decoder {
	return &Decoder{r: bufio.NewReaderSize(r, 64<<10), name: name}
}

// Decode returns the next asset, or io.EOF after the last.
func (d *Decoder) Decode() (*Asset, error) {
	for d.err == nil {
		b, err := d.r.ReadBytes('\n')
		if len(b) == 0 && err == io.EOF {
			d.err = io.EOF
			break
		}
		d.line++
		if err != nil && err != io.EOF {
			d.err = &CorruptError{Path: d.name, Line: d.line, Err: err}
			break
		}
		if err == io.EOF { // no trailing newline
			if len(bytes.TrimSpace(b)) == 0 {
				d.err = io.EOF
			} else {
				d.err = &CorruptError{Path: d.name, Line: d.line, Err: errTorn}
			}
			break
		}
		a, err := decodeLine(b)
		if err != nil {
			d.err = &CorruptError{Path: d.name, Line: d.line, Err: err}
			break
		}
		if a != nil {
			return a, nil
		}
	}
	return nil, d.err
}

// decodeLine decodes and checks one line; a blank line is (nil, nil).
func decodeLine(b []byte) (*Asset, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, nil
	}
	a, err := decodeRecord(b)
	if err != nil {
		return nil, err
	}
	if a.Slug == "" {
		return nil, fmt.Errorf("%w: no slug", ErrInvalid)
	}
	if err := a.Validate(); err != nil {
		return nil, err
	}
	return a, nil
}

// decodeLines decodes the complete lines of data, numbering the first
// firstLine, and calls fn for each asset. When complete is set, data must end
// in '\n' (a torn last line is an error); otherwise an unterminated tail is
// left alone. It returns the number of bytes consumed and of lines read.
func decodeLines(data []byte, name string, firstLine int, complete bool, fn func(*Asset)) (consumed, lines int, err error) {
	for len(data) > consumed {
		nl := bytes.IndexByte(data[consumed:], '\n')
		if nl < 0 {
			if complete && len(bytes.TrimSpace(data[consumed:])) > 0 {
				return consumed, lines, &CorruptError{Path: name, Line: firstLine + lines, Err: errTorn}
			}
			if complete {
				consumed = len(data)
			}
			return consumed, lines, nil
		}
		a, err := decodeLine(data[consumed : consumed+nl])
		if err != nil {
			return consumed, lines, &CorruptError{Path: name, Line: firstLine + lines, Err: err}
		}
		consumed += nl + 1
		lines++
		if a != nil {
			fn(a)
		}
	}
	return consumed, lines, nil
}
