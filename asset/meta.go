package asset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// decodeMeta decodes one record without validating the asset, and
// without its body, context, session and extra fields: what indexing needs.
// It reads as json.Unmarshal into a wireMeta would (FuzzDecodeMeta holds it
// to that), in one check of the JSON and one walk over its members, setting
// the few small values it needs by hand; indexing a large file spends most
// of its time here.
func decodeMeta(rec []byte) (*Asset, recordMeta, error) {
	var w wireRecord
	if err := w.walk(rec, nil); err != nil {
		return nil, recordMeta{}, err
	}
	a, m := w.asset()
	return a, m, nil
}

// decodeRecord decodes one record without validating the asset: as
// decodeMeta does, with the text and, in Extra, the fields Asset has none
// for. FuzzDecodeRecordFast holds it to json.Unmarshal.
func decodeRecord(rec []byte) (*Asset, error) {
	var w wireRecord
	var extra map[string]json.RawMessage
	if err := w.walk(rec, &extra); err != nil {
		return nil, err
	}
	a, _ := w.asset()
	a.Body, a.Context, a.Session = w.Body, w.Context, w.Session
	a.Extra = extra
	return a, nil
}

// walk reads rec into w, and, with extra, the text and the unknown fields.
func (w *wireRecord) walk(rec []byte, extra *map[string]json.RawMessage) error {
	if !isObject(rec) {
		return errNotObject
	}
	if !json.Valid(rec) {
		var w wireMeta // for json's own account of what is wrong
		return jsonError(json.Unmarshal(rec, &w))
	}
	obj := bytes.TrimLeft(rec, " \t\r\n")
	i := skipSpace(obj, 1)
	for i < len(obj) && obj[i] != '}' {
		ks := i
		i = skipString(obj, i)
		key := obj[ks:i]
		i = skipSpace(obj, skipSpace(obj, i)+1) // past ':'
		vs := i
		i = skipValue(obj, i)
		v := obj[vs:i]
		k := metaKey(key)
		if err := w.set(k, v, extra != nil); err != nil {
			return err
		}
		if extra != nil {
			if name, ok := unknownKey(key); ok {
				if *extra == nil {
					*extra = make(map[string]json.RawMessage)
				}
				(*extra)[name] = bytes.Clone(v)
			}
		}
		if i = skipSpace(obj, i); i < len(obj) && obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
	}
	return nil
}

// metaKeys are the JSON keys of wireMeta.
var metaKeys = []string{
	"type", "slug", "title", "tags", "date", "recorded_at", "scope", "body", "context", "session",
	"schema_version", "last_accessed_at", "last_accessed", "access_count", "resolved", "stability",
	"level", "confidence", "compressed", "compressed_summary", "summary_of",
}

// metaKey returns the wireMeta key the quoted JSON key q names, matched as
// encoding/json matches: exactly, else without regard to case; "" if none.
func metaKey(q []byte) string {
	raw := q[1 : len(q)-1]
	if bytes.IndexByte(raw, '\\') < 0 {
		for _, k := range metaKeys {
			if string(raw) == k {
				return k
			}
		}
	}
	var k string
	if json.Unmarshal(q, &k) != nil {
		return ""
	}
	for _, known := range metaKeys {
		if k == known {
			return known
		}
	}
	for _, known := range metaKeys {
		if strings.EqualFold(k, known) {
			return known
		}
	}
	return ""
}

// set sets the field of the wireMeta key k to the JSON value v, which is
// valid JSON; with text, the body, context and session too.
func (w *wireRecord) set(k string, v []byte, text bool) error {
	if err := w.setField(k, v, text); err != nil {
		if strings.HasPrefix(err.Error(), "asset: ") {
			return err
		}
		return fmt.Errorf("asset: field %q: %w", k, err)
	}
	return nil
}

func (w *wireRecord) setField(k string, v []byte, text bool) error {
	switch k {
	case "":
		return nil
	case "type":
		return setString((*string)(&w.Type), k, v)
	case "slug":
		return setString(&w.Slug, k, v)
	case "title":
		return setString(&w.Title, k, v)
	case "scope":
		return setString((*string)(&w.Scope), k, v)
	case "level":
		return setString(&w.Level, k, v)
	case "confidence":
		return setString(&w.Confidence, k, v)
	case "tags":
		return setStrings(&w.Tags, k, v)
	case "date":
		return w.Date.UnmarshalJSON(v)
	case "recorded_at":
		return w.RecordedAt.UnmarshalJSON(v)
	case "last_accessed_at":
		return w.LastAccessed.UnmarshalJSON(v)
	case "last_accessed":
		return w.LastAccessedV.UnmarshalJSON(v)
	case "schema_version":
		return w.SchemaVersion.UnmarshalJSON(v)
	case "stability":
		return w.Stability.UnmarshalJSON(v)
	case "body":
		return w.setText(&w.Body, k, v, text)
	case "context":
		return w.setText(&w.Context, k, v, text)
	case "session":
		return w.setText(&w.Session, k, v, text)
	case "access_count":
		if string(v) == "null" {
			return nil
		}
		n, err := strconv.Atoi(string(v))
		if err != nil {
			return typeError(k, v, "an integer")
		}
		w.AccessCount = n
	case "resolved":
		switch string(v) {
		case "null":
			w.Resolved = nil
		case "true", "false":
			b := v[0] == 't'
			w.Resolved = &b
		default:
			return typeError(k, v, "true or false")
		}
	case "compressed":
		w.Compressed = bytes.Clone(v)
	case "compressed_summary":
		w.CompressedSummary = bytes.Clone(v)
	case "summary_of":
		w.SummaryOf = bytes.Clone(v)
	}
	return nil
}

func (w *wireRecord) setText(dst *string, k string, v []byte, text bool) error {
	if text {
		return setString(dst, k, v)
	}
	return textField{}.UnmarshalJSON(v)
}

// typeError is jsonError's account of a value of the wrong kind.
func typeError(field string, v []byte, want string) error {
	kind := "number"
	switch v[0] {
	case '"':
		kind = "string"
	case '[':
		kind = "array"
	case '{':
		kind = "object"
	case 't', 'f':
		kind = "bool"
	}
	return fmt.Errorf("asset: field %q: a JSON %s where %s is wanted", field, kind, want)
}

// setString sets *dst to the JSON string v; null leaves it.
func setString(dst *string, field string, v []byte) error {
	switch {
	case string(v) == "null":
		return nil
	case v[0] != '"':
		return typeError(field, v, "a string")
	}
	s, err := unquote(v)
	if err != nil {
		return err
	}
	*dst = s
	return nil
}

// unquote returns the JSON string v: without escapes and valid UTF-8, its
// bytes; otherwise as encoding/json reads it.
func unquote(v []byte) (string, error) {
	raw := v[1 : len(v)-1]
	if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return string(raw), nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", jsonError(err)
	}
	return s, nil
}

// setStrings sets *dst to the JSON array of strings v; null sets it nil.
func setStrings(dst *[]string, field string, v []byte) error {
	switch {
	case string(v) == "null":
		*dst = nil
		return nil
	case v[0] != '[':
		return typeError(field, v, "an array of strings")
	}
	out := []string{}
	i := skipSpace(v, 1)
	for i < len(v) && v[i] != ']' {
		es := i
		i = skipValue(v, i)
		e := v[es:i]
		switch {
		case string(e) == "null":
			out = append(out, "") // as encoding/json leaves it
		case e[0] != '"':
			return typeError(field, e, "an array of strings")
		default:
			s, err := unquote(e)
			if err != nil {
				return err
			}
			out = append(out, s)
		}
		if i = skipSpace(v, i); i < len(v) && v[i] == ',' {
			i = skipSpace(v, i+1)
		}
	}
	*dst = out
	return nil
}
