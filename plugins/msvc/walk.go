package msvc

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"
)

var reflectConfig = reflect.TypeFor[Config]()

// walker reads a configuration token by token before it is decoded: it
// records where each field's value starts, so that later problems can name
// a line and column, and it finds fields the schema does not know (exactly,
// unlike encoding/json, which ignores case) and fields given twice.
type walker struct {
	data     []byte
	dec      *json.Decoder
	pos      map[string]int64 // field path -> offset of its value
	lines    []int64          // offsets where lines start; made when needed
	problems []Problem
}

// errStop ends a walk whose structure cannot be followed further.
var errStop = errors.New("stop")

// value walks one JSON value at path, of Go type t (nil when unknown).
func (w *walker) value(path string, t reflect.Type) error {
	start := w.skip(w.dec.InputOffset())
	w.pos[path] = start
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return w.skipValue(tok) // outside the schema: nothing to place
	}
	if path == "" && tok != json.Delim('{') {
		w.problems = append(w.problems, w.problem(start, "", "not a JSON object"))
		return errStop
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]bool{}
		for w.dec.More() {
			keyStart := w.skip(w.dec.InputOffset())
			tok, err := w.dec.Token()
			if err != nil {
				return err
			}
			key, _ := tok.(string)
			field := join(path, key)
			var ft reflect.Type
			switch {
			case t == nil:
			case t.Kind() == reflect.Map:
				ft = t.Elem()
			case t.Kind() == reflect.Struct:
				var names []string
				for f := range t.Fields() {
					name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
					names = append(names, name)
					if name == key {
						ft = f.Type
					}
				}
				if ft == nil {
					slices.Sort(names)
					w.problems = append(w.problems, w.problem(keyStart, field,
						"unknown field (valid fields: "+strings.Join(names, ", ")+")"))
				}
			}
			if seen[key] {
				w.problems = append(w.problems, w.problem(keyStart, field, "given twice"))
			}
			seen[key] = true
			if err := w.value(field, ft); err != nil {
				return err
			}
		}
		_, err = w.dec.Token()
		return err
	case json.Delim('['):
		var et reflect.Type
		if t != nil && t.Kind() == reflect.Slice {
			et = t.Elem()
		}
		for i := 0; w.dec.More(); i++ {
			if err := w.value(fmt.Sprintf("%s[%d]", path, i), et); err != nil {
				return err
			}
		}
		_, err = w.dec.Token()
		return err
	}
	return nil
}

// skipValue reads the rest of a value that began with tok, without
// recursion, so that deep nesting costs no more than its length.
func (w *walker) skipValue(tok json.Token) error {
	depth := 0
	for {
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
		var err error
		if tok, err = w.dec.Token(); err != nil {
			return err
		}
	}
}

// skip returns the offset of the next token at or after off.
func (w *walker) skip(off int64) int64 {
	for off < int64(len(w.data)) && strings.IndexByte(" \t\r\n:,", w.data[off]) >= 0 {
		off++
	}
	return off
}

// place returns the line and column of field's value, or of the nearest
// enclosing field given; zero for a field not in the file at all.
func (w *walker) place(field string) (line, col int) {
	for {
		if off, ok := w.pos[field]; ok && field != "" {
			return w.lineCol(off)
		}
		i := strings.LastIndexAny(field, ".[")
		if i < 0 {
			return 0, 0
		}
		field = field[:i]
	}
}

func (w *walker) lineCol(off int64) (line, col int) {
	if w.lines == nil {
		w.lines = []int64{0}
		for i, b := range w.data {
			if b == '\n' {
				w.lines = append(w.lines, int64(i)+1)
			}
		}
	}
	off = min(max(off, 0), int64(len(w.data)))
	line, _ = slices.BinarySearch(w.lines, off+1) // lines starting at or before off
	return line, 1 + utf8.RuneCount(w.data[w.lines[line-1]:off])
}

func (w *walker) problem(off int64, field, msg string) Problem {
	line, col := w.lineCol(off)
	return Problem{Line: line, Col: col, Field: field, Message: msg}
}

// configError turns a decoding error into a [*ConfigError] with a place.
func (w *walker) configError(file string, err error) *ConfigError {
	var (
		syn *json.SyntaxError
		typ *json.UnmarshalTypeError
	)
	switch {
	case errors.Is(err, errStop):
		return &ConfigError{File: file, Problems: w.problems}
	case errors.As(err, &syn):
		return &ConfigError{File: file, Problems: []Problem{w.problem(syn.Offset, "", "JSON syntax: "+syn.Error())}}
	case errors.As(err, &typ):
		// Offset is where the decoder stopped, after the value.
		line, col := w.place(typ.Field)
		if line == 0 {
			line, col = w.lineCol(typ.Offset)
		}
		return &ConfigError{File: file, Problems: []Problem{{Line: line, Col: col, Field: typ.Field,
			Message: fmt.Sprintf("%s where %s is wanted", typ.Value, jsonType(typ.Type))}}}
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return &ConfigError{File: file, Problems: []Problem{w.problem(int64(len(w.data)), "", "unexpected end of JSON")}}
	}
	return &ConfigError{File: file, Problems: []Problem{{Message: err.Error()}}}
}

func jsonType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int:
		return "a whole number"
	case reflect.String:
		return "a string"
	case reflect.Slice:
		return "an array"
	case reflect.Map, reflect.Struct, reflect.Pointer:
		return "an object"
	}
	return t.String()
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
