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

// A record is one JSON object of an assets file, on a line of its own (or,
// as the engine's reader accepts, spread over consecutive lines), followed by
// '\n'. The format is the harnish engine's (.harnish/harnish-assets.jsonl),
// so the engine and harnish can share one file:
//
//   - "date" is the day ("2006-01-02"), which the engine's purge reads; the
//     time of day is kept in "recorded_at" (RFC 3339), which the engine
//     keeps as it keeps any field it does not know. A "date" that is a full
//     RFC 3339 time (as harnish wrote before) is read as such.
//   - "last_accessed_at" is an RFC 3339 time; "last_accessed", its name
//     before, is read too.
//   - "schema_version" is the engine's "0.0.2" (read as version 1, with
//     "0.0.1" and the integer 1).
//   - "stability" is a number or a string; a number is written back as one.
//   - "access_count" is always written, 0 included.
//   - any other field is kept in [Asset.Extra] and written back.

// maxRecordBytes bounds a record, so a file without newlines or an object
// that never closes cannot take all memory.
const maxRecordBytes = 8 << 20

// engineVersion is how a record of [SchemaVersion] spells its version.
const engineVersion = `"0.0.2"`

// wireMeta is what indexing a record reads: everything but the text of the
// body, context and session, which are only checked to be strings.
type wireMeta struct {
	Type          Type        `json:"type"`
	Slug          string      `json:"slug"`
	Title         string      `json:"title"`
	Tags          []string    `json:"tags"`
	Date          flexTime    `json:"date"`
	RecordedAt    flexTime    `json:"recorded_at"`
	Scope         Scope       `json:"scope"`
	Body          textField   `json:"body"`
	Context       textField   `json:"context"`
	Session       textField   `json:"session"`
	SchemaVersion flexVersion `json:"schema_version"`
	LastAccessed  flexTime    `json:"last_accessed_at"`
	LastAccessedV flexTime    `json:"last_accessed"`
	AccessCount   int         `json:"access_count"`
	Resolved      *bool       `json:"resolved"`
	Stability     flexString  `json:"stability"`
	Level         string      `json:"level"`
	Confidence    string      `json:"confidence"`
	// The markers of compression: the engine's and harnish's.
	Compressed        json.RawMessage `json:"compressed"`
	CompressedSummary json.RawMessage `json:"compressed_summary"`
	SummaryOf         json.RawMessage `json:"summary_of"`
}

// wireRecord is the whole record: wireMeta with the text it skips (the
// shallower fields win).
type wireRecord struct {
	wireMeta
	Body    string `json:"body"`
	Context string `json:"context"`
	Session string `json:"session"`
}

// knownKeys are the JSON keys of the fields of [Asset]; any other key goes
// to Extra.
var knownKeys = []string{
	"type", "slug", "title", "tags", "date", "recorded_at", "scope", "body", "context", "session",
	"schema_version", "last_accessed_at", "last_accessed", "access_count",
	"resolved", "stability", "level", "confidence",
}

// wireOut is the JSON shape of a record as written.
type wireOut struct {
	Type          Type            `json:"type"`
	Slug          string          `json:"slug"`
	Title         string          `json:"title"`
	Tags          []string        `json:"tags,omitempty"`
	Date          string          `json:"date,omitempty"`
	RecordedAt    string          `json:"recorded_at,omitempty"`
	Scope         Scope           `json:"scope,omitempty"`
	Body          string          `json:"body,omitempty"`
	Context       string          `json:"context,omitempty"`
	Session       string          `json:"session,omitempty"`
	SchemaVersion json.RawMessage `json:"schema_version,omitempty"`
	LastAccessed  time.Time       `json:"last_accessed_at,omitzero"`
	AccessCount   int             `json:"access_count"`
	Resolved      *bool           `json:"resolved,omitempty"`
	Stability     json.RawMessage `json:"stability,omitempty"`
	Level         string          `json:"level,omitempty"`
	Confidence    string          `json:"confidence,omitempty"`
}

// recordMeta is what the index keeps of a record besides its asset's
// fields: the markers of compression.
type recordMeta struct {
	// hidden: "compressed": true, a record folded into a summary (the
	// engine marks them so and keeps them in the file); queries skip it.
	hidden bool
	// summary: a summary record ("summary_of" or the engine's
	// "compressed_summary": true), never folded again; of counts the
	// slugs its "summary_of" lists.
	summary bool
	of      int
}

// MarshalJSON writes a as a record in the engine's format: its known
// fields (Date as "date", the day in UTC, and "recorded_at", the time, when
// it is not midnight; SchemaVersion 1 as "0.0.2"; AccessCount always), then
// the fields of Extra sorted by key. An Extra key that names a known field
// is not written (the field is); an Extra value that is not valid JSON, or a
// Date outside the years 0 to 9999, is an error.
func (a Asset) MarshalJSON() ([]byte, error) {
	w := wireOut{
		Type: a.Type, Slug: a.Slug, Title: a.Title, Tags: a.Tags,
		Scope: a.Scope, Body: a.Body, Context: a.Context, Session: a.Session,
		LastAccessed: a.LastAccessed, AccessCount: a.AccessCount, Resolved: a.Resolved,
		Level: a.Level, Confidence: a.Confidence,
	}
	if !a.Date.IsZero() {
		d := a.Date.UTC()
		if d.Year() < 0 || d.Year() > 9999 {
			return nil, fmt.Errorf("asset: date %s is outside the years 0 to 9999 (UTC)", a.Date)
		}
		w.Date = d.Format(time.DateOnly)
		if !d.Equal(dayOf(d)) {
			w.RecordedAt = d.Format(time.RFC3339Nano)
		}
	}
	switch a.SchemaVersion {
	case 0:
	case SchemaVersion:
		w.SchemaVersion = json.RawMessage(engineVersion)
	default:
		w.SchemaVersion = json.RawMessage(strconv.Itoa(a.SchemaVersion))
	}
	if a.Stability != "" {
		if isJSONNumber(a.Stability) {
			w.Stability = json.RawMessage(a.Stability)
		} else {
			w.Stability, _ = json.Marshal(a.Stability)
		}
	}
	b, err := json.Marshal(w)
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

// dayOf returns midnight UTC of t's day in UTC.
func dayOf(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// isJSONNumber reports whether s is a JSON number.
func isJSONNumber(s string) bool {
	return s != "" && (s[0] == '-' || ('0' <= s[0] && s[0] <= '9')) && json.Valid([]byte(s))
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

var errNotObject = errors.New("asset: record is not a JSON object")

// jsonError says what json.Unmarshal found wrong with a record, naming the
// field in the record's terms, not Go's.
func jsonError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		field := te.Field[strings.LastIndexByte(te.Field, '.')+1:]
		return fmt.Errorf("asset: field %q: a JSON %s where %s is wanted", field, te.Value, wantedJSON(te.Type.String()))
	}
	return fmt.Errorf("asset: %w", err)
}

func wantedJSON(goType string) string {
	switch goType {
	case "string", "asset.Type", "asset.Scope":
		return "a string"
	case "[]string":
		return "an array of strings"
	case "int", "int64":
		return "an integer"
	case "bool", "*bool":
		return "true or false"
	}
	return "another kind of value"
}

func isObject(rec []byte) bool {
	trimmed := bytes.TrimLeft(rec, " \t\r\n")
	return len(trimmed) > 0 && trimmed[0] == '{'
}

// asset returns the asset w holds, without its text, and the markers of
// compression.
func (w *wireMeta) asset() (*Asset, recordMeta) {
	if len(w.Tags) == 0 {
		w.Tags = nil // "tags":[] and no tags are the same asset
	}
	last := w.LastAccessed.t
	if last.IsZero() {
		last = w.LastAccessedV.t
	}
	date := w.Date.t
	if r := w.RecordedAt.t; !r.IsZero() && (date.IsZero() || date.Equal(dayOf(r))) {
		date = r
	}
	a := &Asset{
		Type: w.Type, Slug: w.Slug, Title: w.Title, Tags: w.Tags, Date: date,
		Scope: w.Scope, SchemaVersion: int(w.SchemaVersion), LastAccessed: last,
		AccessCount: w.AccessCount, Resolved: w.Resolved, Stability: string(w.Stability),
		Level: w.Level, Confidence: w.Confidence,
	}
	m := recordMeta{
		hidden:  string(w.Compressed) == "true",
		summary: w.SummaryOf != nil || string(w.CompressedSummary) == "true",
	}
	if w.SummaryOf != nil {
		var of []json.RawMessage
		if json.Unmarshal(w.SummaryOf, &of) == nil {
			m.of = len(of)
		}
	}
	return a, m
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

// unknownKey returns the key of the quoted JSON string q and whether it is
// unknown.
func unknownKey(q []byte) (string, bool) {
	switch string(q[1 : len(q)-1]) { // the common case: known, exact, unescaped
	case "type", "slug", "title", "tags", "date", "recorded_at", "scope", "body", "context", "session",
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
	if len(b) == 12 && b[0] == '"' && b[11] == '"' {
		if t, ok := parseDay(b[1:11]); ok { // the engine's "date", most often
			f.t = t
			return nil
		}
	}
	s, err := strconv.Unquote(string(b))
	if err != nil || (len(b) > 0 && b[0] != '"') {
		return fmt.Errorf("time %s is not a string", b)
	}
	if s == "" {
		return nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return f.set(s, t)
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return fmt.Errorf("time %q is neither RFC 3339 nor a date", s)
	}
	f.t = t
	return nil
}

// set sets f to t, if a record can hold it: in UTC, within the years 0 to
// 9999.
func (f *flexTime) set(s string, t time.Time) error {
	if y := t.UTC().Year(); y < 0 || y > 9999 {
		return fmt.Errorf("time %q is outside the years 0 to 9999 (UTC)", s)
	}
	f.t = t
	return nil
}

// parseDay parses "2006-01-02" as time.Parse(time.DateOnly) does, without
// allocating; ok is false for anything time.Parse might read otherwise.
func parseDay(b []byte) (time.Time, bool) {
	num := func(b []byte) (int, bool) {
		n := 0
		for _, c := range b {
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	if len(b) != 10 || b[4] != '-' || b[7] != '-' {
		return time.Time{}, false
	}
	y, ok1 := num(b[:4])
	m, ok2 := num(b[5:7])
	d, ok3 := num(b[8:])
	if !ok1 || !ok2 || !ok3 || m < 1 || m > 12 || d < 1 || d > daysIn(time.Month(m), y) {
		return time.Time{}, false
	}
	return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC), true
}

func daysIn(m time.Month, year int) int {
	return time.Date(year, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
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

// textField checks that a value is a JSON string (or null) without
// keeping it.
type textField struct{}

func (textField) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && (b[0] == '"' || string(b) == "null") {
		return nil
	}
	return fmt.Errorf("%s is not a string", b)
}

var (
	errTorn     = errors.New("torn last line (no trailing newline)")
	errUnclosed = errors.New("the record's object does not close before the end of the file")
)

// tailError says what is wrong with data, the unterminated end of a file.
func tailError(data []byte) error {
	if bytes.IndexByte(bytes.TrimLeft(data, " \t\r\n"), '\n') >= 0 {
		return errUnclosed
	}
	return errTorn
}

// nextRecord finds the record at the start of data: its line, or, when that
// line opens a JSON object it does not close, the lines up to the one that
// closes it (the engine's reader accepts records spread over lines). It
// returns the record without its last '\n', the bytes it takes with that
// '\n', and its number of lines. ok is false when data does not yet hold the
// record's last '\n'. A record longer than maxRecordBytes is an error.
//
// Without thorough, a line that ends in '}' is taken to close its object
// without looking; a caller that cannot decode it asks again, thoroughly.
func nextRecord(data []byte, thorough bool) (rec []byte, consumed, lines int, ok bool, err error) {
	nl := bytes.IndexByte(data, '\n')
	if nl < 0 {
		if len(data) > maxRecordBytes {
			return nil, 0, 0, false, errTooLong
		}
		return nil, 0, 0, false, nil
	}
	line := bytes.TrimRight(data[:nl], " \t\r")
	start := skipSpace(line, 0)
	if start == len(line) || line[start] != '{' || (!thorough && line[len(line)-1] == '}') || skipValue(line, start) >= 0 {
		return data[:nl], nl + 1, 1, true, nil
	}
	// The object goes on past this line: find where it closes.
	end := skipValue(data[:min(len(data), maxRecordBytes+1)], start)
	if end < 0 {
		if len(data) > maxRecordBytes {
			return nil, 0, 0, false, errTooLong
		}
		return nil, 0, 0, false, nil
	}
	nl = bytes.IndexByte(data[end:], '\n')
	if nl < 0 {
		return nil, 0, 0, false, nil
	}
	rec = data[:end+nl]
	return rec, len(rec) + 1, bytes.Count(rec, []byte{'\n'}) + 1, true, nil
}

var errTooLong = fmt.Errorf("record longer than %d bytes (an object that does not close?)", maxRecordBytes)

// Decoder reads the records of an assets file strictly: every record must be
// a valid asset (see [Asset.Validate]) with a slug, and the last line must
// end in '\n'. A blank line is skipped; a record may span lines, as the
// engine's reader allows, up to 8 MiB. Anything else is a [*CorruptError]
// naming the file and the record's first line; the Decoder stops there.
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
		rec, lines, err := d.next()
		if err != nil {
			d.err = err
			break
		}
		a, err := decodeLine(rec)
		if err != nil {
			d.err = &CorruptError{Path: d.name, Line: d.line + 1, Err: err}
			break
		}
		d.line += lines
		if a != nil {
			return a, nil
		}
	}
	return nil, d.err
}

// next reads the next record's lines.
func (d *Decoder) next() (rec []byte, lines int, err error) {
	var buf []byte
	for {
		b, err := d.r.ReadSlice('\n')
		buf = append(buf, b...)
		switch {
		case err == bufio.ErrBufferFull:
			if len(buf) > maxRecordBytes {
				return nil, 0, &CorruptError{Path: d.name, Line: d.line + 1, Err: errTooLong}
			}
			continue
		case err == io.EOF:
			if len(bytes.TrimSpace(buf)) == 0 {
				return nil, 0, io.EOF
			}
			return nil, 0, &CorruptError{Path: d.name, Line: d.line + 1, Err: tailError(buf)}
		case err != nil:
			return nil, 0, &CorruptError{Path: d.name, Line: d.line + 1, Err: err}
		}
		rec, _, lines, ok, err := nextRecord(buf, true)
		if err != nil {
			return nil, 0, &CorruptError{Path: d.name, Line: d.line + 1, Err: err}
		}
		if ok {
			return rec, lines, nil
		}
	}
}

// decodeLine decodes and checks one record; a blank one is (nil, nil).
func decodeLine(b []byte) (*Asset, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, nil
	}
	a, err := decodeRecord(b)
	if err != nil {
		return nil, err
	}
	return a, checkStored(a)
}

// checkStored checks a record's asset as a store holds it.
func checkStored(a *Asset) error {
	if a.Slug == "" {
		return fmt.Errorf("%w: no slug", ErrInvalid)
	}
	return a.Validate()
}

// span is where a record sits in its file.
type span struct {
	off  int64 // byte offset of its first line
	n    int   // its bytes, without the last '\n'
	line int   // its first line, 1-based
}

// decodeSpans indexes the records of data, whose first byte is at offset
// base of the file and on line firstLine, and calls fn for each asset, read
// without its text (see decodeMeta) and checked. When complete is set, data
// must end in '\n' (a torn last line is an error); otherwise an
// unterminated tail is left alone. It returns the number of bytes consumed
// and of lines read.
func decodeSpans(data []byte, base int64, name string, firstLine int, complete bool, fn func(*Asset, recordMeta, span)) (consumed, lines int, err error) {
	for len(data) > consumed {
		rec, n, recLines, ok, err := nextRecord(data[consumed:], false)
		if err != nil {
			return consumed, lines, &CorruptError{Path: name, Line: firstLine + lines, Err: err}
		}
		if !ok {
			if complete && len(bytes.TrimSpace(data[consumed:])) > 0 {
				return consumed, lines, &CorruptError{Path: name, Line: firstLine + lines, Err: tailError(data[consumed:])}
			}
			if complete {
				consumed = len(data)
			}
			return consumed, lines, nil
		}
		if len(bytes.TrimSpace(rec)) > 0 {
			a, m, err := decodeMeta(rec)
			if err != nil && recLines == 1 {
				// It may be a record spread over lines after all.
				more, n2, lines2, ok, err2 := nextRecord(data[consumed:], true)
				if err2 != nil {
					return consumed, lines, &CorruptError{Path: name, Line: firstLine + lines, Err: err2}
				}
				if !ok {
					if complete {
						return consumed, lines, &CorruptError{Path: name, Line: firstLine + lines, Err: tailError(data[consumed:])}
					}
					return consumed, lines, nil
				}
				if lines2 > 1 {
					rec, n, recLines = more, n2, lines2
					a, m, err = decodeMeta(rec)
				}
			}
			if err == nil {
				err = checkStored(a)
			}
			if err != nil {
				return consumed, lines, &CorruptError{Path: name, Line: firstLine + lines, Err: err}
			}
			fn(a, m, span{off: base + int64(consumed), n: len(rec), line: firstLine + lines})
		}
		consumed += n
		lines += recLines
	}
	return consumed, lines, nil
}

// patchFields returns the JSON object obj with the top-level members of
// set's keys given set's values: in place where obj has the key (exactly),
// else added at its end. The rest of obj is kept byte for byte, so a record
// another tool wrote keeps its shape when harnish updates its access count.
func patchFields(obj []byte, set [][2][]byte) ([]byte, error) {
	bad := errors.New("asset: record is not a JSON object")
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return nil, bad
	}
	out := append(make([]byte, 0, len(obj)+64), obj[:i+1]...)
	done := make([]bool, len(set))
	last := i + 1
	i = skipSpace(obj, i+1)
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
		for k, kv := range set {
			if bytes.Equal(key, kv[0]) { // every time: of a repeated key, the last counts
				out = append(append(out, obj[:vs][last:]...), kv[1]...)
				last, done[k] = i, true
			}
		}
		i = skipSpace(obj, i)
		if i < len(obj) && obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
	}
	if i >= len(obj) {
		return nil, bad
	}
	out = append(out, obj[last:i]...) // up to the closing '}'
	empty := len(bytes.TrimSpace(obj[skipSpace(obj, 0)+1:i])) == 0
	for k, kv := range set {
		if done[k] {
			continue
		}
		if !empty {
			out = append(out, ',')
		}
		empty = false
		out = append(append(append(out, kv[0]...), ':'), kv[1]...)
	}
	return append(out, obj[i:]...), nil
}
