package task

import (
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/harnish/harnish/internal/strdist"
	"github.com/harnish/harnish/task/internal/quote"
	"github.com/harnish/harnish/task/internal/source"
)

// Limits that keep a hostile plan from costing more than a large honest one.
const (
	// maxAliasNodes bounds the values read through aliases, so aliases of
	// aliases cannot blow a small file up into gigabytes: plenty for an
	// anchor shared by every task of a large plan, too few to be expensive.
	// (yaml.v3 guards against alias bombs only when it decodes into Go
	// values, not into the node tree this decoder walks.) Values written out
	// need no bound: the parser has already paid for them.
	maxAliasNodes = 20_000
	// maxProblems bounds the problems the decoder collects; past it, one more
	// problem says so.
	maxProblems = 200
)

// decoder turns a YAML node tree into plan types, strictly: unknown fields,
// duplicate keys, wrong types and bad durations are problems, all collected.
type decoder struct {
	file     string
	problems Problems
	pos      map[string]source.Position
	unread   *source.Unread
	aliased  int  // values read through aliases
	inAlias  int  // depth of aliases being read
	stopped  bool // too many nodes or problems: decoding has given up
}

// fail reports that the value of field could not be read, and skips it.
func (d *decoder) fail(at source.Position, field, format string, args ...any) {
	d.unread.Add(field)
	d.report(at, field, format, args...)
}

func (d *decoder) report(at source.Position, field, format string, args ...any) {
	if d.stopped {
		return
	}
	if len(d.problems) == maxProblems {
		d.stop(at, field, "too many problems; stopped after %d", maxProblems)
		return
	}
	d.problems = append(d.problems, Problem{File: d.file, Line: at.Line, Column: at.Col,
		Field: field, Message: fmt.Sprintf(format, args...), Err: ErrSchema})
}

// stop records a last problem and makes decoding give up.
func (d *decoder) stop(at source.Position, field, format string, args ...any) {
	d.problems = append(d.problems, Problem{File: d.file, Line: at.Line, Column: at.Col,
		Field: field, Message: fmt.Sprintf(format, args...), Err: ErrSchema})
	d.stopped = true
}

func at(n *yaml.Node) source.Position { return source.Position{Line: n.Line, Col: n.Column} }

var (
	durationType = reflect.TypeFor[Duration]()
	goTestType   = reflect.TypeFor[GoTestCheck]()
)

const versionField = "version"

// decode fills v from n. field is v's path in the plan.
func (d *decoder) decode(n *yaml.Node, v reflect.Value, field string) {
	if d.stopped {
		return
	}
	// A field is where it is written: for an alias, where the alias is, not
	// where its anchor is.
	pos := at(n)
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		d.inAlias++
		defer func() { d.inAlias-- }()
		n = n.Alias
	}
	if d.inAlias > 0 {
		d.aliased++
		if d.aliased > maxAliasNodes {
			d.stop(pos, field, "plan expands to more than %d values through aliases", maxAliasNodes)
			return
		}
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		pos.Null = true
		d.pos[field] = pos
		return // an explicit null leaves the zero value
	}
	d.pos[field] = pos
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		v = v.Elem()
	}
	switch {
	case v.Type() == durationType:
		d.decodeDuration(n, pos, v, field)
	case field == versionField:
		d.decodeVersion(n, pos, v, field)
	case v.Type() == goTestType && n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str":
		// The short form "gotest: ./calc/..." names one package pattern.
		v.Set(reflect.ValueOf(GoTestCheck{Packages: []string{n.Value}}))
	case v.Kind() == reflect.Struct:
		d.decodeStruct(n, pos, v, field)
	case v.Kind() == reflect.Slice:
		d.decodeSlice(n, pos, v, field)
	case v.Kind() == reflect.Map:
		d.decodeMap(n, pos, v, field)
	default:
		d.decodeScalar(n, pos, v, field)
	}
}

func (d *decoder) decodeStruct(n *yaml.Node, pos source.Position, v reflect.Value, field string) {
	if n.Kind != yaml.MappingNode {
		d.fail(pos, field, "expected a mapping, got %s", describe(n))
		return
	}
	fields := planFields(v.Type())
	seen := make(map[string]int, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		name, ok := d.key(key, field)
		if !ok {
			continue
		}
		path := source.Join(field, name)
		if first, dup := seen[name]; dup {
			d.fail(at(key), path, "duplicate field (first at line %d)", first)
			continue
		}
		seen[name] = key.Line
		idx, ok := fields[name]
		if !ok {
			d.fail(at(key), path, "unknown field%s", suggest(name, fields))
			continue
		}
		d.decode(val, v.Field(idx), path)
	}
}

func (d *decoder) decodeSlice(n *yaml.Node, pos source.Position, v reflect.Value, field string) {
	if n.Kind != yaml.SequenceNode {
		d.fail(pos, field, "expected a list, got %s", describe(n))
		return
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, item := range n.Content {
		d.decode(item, s.Index(i), fmt.Sprintf("%s[%d]", field, i))
	}
	v.Set(s)
}

func (d *decoder) decodeMap(n *yaml.Node, pos source.Position, v reflect.Value, field string) {
	if n.Kind != yaml.MappingNode {
		d.fail(pos, field, "expected a mapping, got %s", describe(n))
		return
	}
	m := reflect.MakeMapWithSize(v.Type(), len(n.Content)/2)
	seen := make(map[string]int, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		name, ok := d.key(key, field)
		if !ok {
			continue
		}
		path := source.Join(field, name)
		if first, dup := seen[name]; dup {
			d.fail(at(key), path, "duplicate key (first at line %d)", first)
			continue
		}
		seen[name] = key.Line
		elem := reflect.New(v.Type().Elem()).Elem()
		d.decode(val, elem, path)
		m.SetMapIndex(reflect.ValueOf(name), elem)
	}
	v.Set(m)
}

// key returns a mapping key as a string; keys must be plain strings. A bad
// key skips its field, unknown, in the mapping at field.
func (d *decoder) key(n *yaml.Node, field string) (string, bool) {
	pos := at(n)
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	switch {
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str":
		return n.Value, true
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!merge":
		d.report(pos, field, "merge keys (<<) are not supported; write the fields out")
	default:
		d.report(pos, field, "expected a string key, got %s", describe(n))
	}
	d.unread.Add(source.Join(field, "?"))
	return "", false
}

func (d *decoder) decodeScalar(n *yaml.Node, pos source.Position, v reflect.Value, field string) {
	if n.Kind != yaml.ScalarNode {
		d.fail(pos, field, "expected %s, got %s", kindName(v.Kind()), describe(n))
		return
	}
	tag := n.ShortTag()
	switch v.Kind() {
	case reflect.String:
		if tag != "!!str" {
			d.fail(pos, field, "expected a string, got %s (quote it)", describe(n))
			return
		}
		v.SetString(n.Value)
	case reflect.Int, reflect.Int64:
		if tag != "!!int" {
			d.fail(pos, field, "expected an integer, got %s", describe(n))
			return
		}
		i, err := strconv.ParseInt(n.Value, 0, 64)
		switch {
		case err != nil && !isRange(err):
			d.fail(pos, field, "invalid integer %s", quote.String(n.Value))
		case err != nil || v.OverflowInt(i):
			d.fail(pos, field, "integer %s out of range", quote.Bare(n.Value))
		default:
			v.SetInt(i)
		}
	case reflect.Float64:
		var f float64
		var err error
		switch tag {
		case "!!int":
			var i int64
			i, err = strconv.ParseInt(n.Value, 0, 64)
			f = float64(i)
		case "!!float":
			f, err = strconv.ParseFloat(n.Value, 64)
		default:
			d.fail(pos, field, "expected a number, got %s", describe(n))
			return
		}
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			d.fail(pos, field, "invalid number %s", quote.Bare(n.Value))
			return
		}
		v.SetFloat(f)
	case reflect.Bool:
		b, err := strconv.ParseBool(n.Value)
		if tag != "!!bool" || err != nil {
			d.fail(pos, field, "expected true or false, got %s", describe(n))
			return
		}
		v.SetBool(b)
	default:
		panic(fmt.Sprintf("task: no decoder for %s", v.Type())) // a plan type this decoder does not know
	}
}

func isRange(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

func (d *decoder) decodeDuration(n *yaml.Node, pos source.Position, v reflect.Value, field string) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		d.fail(pos, field, "expected a duration such as \"30m\", got %s", describe(n))
		return
	}
	dur, err := time.ParseDuration(n.Value)
	if err != nil {
		d.fail(pos, field, "invalid duration %s (use Go syntax such as 90s, 30m, 1h30m)", quote.String(n.Value))
		return
	}
	v.SetInt(int64(dur))
}

// decodeVersion takes the version as written: 1 and "1" are both fine.
func (d *decoder) decodeVersion(n *yaml.Node, pos source.Position, v reflect.Value, field string) {
	if s, ok := versionString(n); ok {
		v.SetString(s)
		return
	}
	d.fail(pos, field, "expected a version such as %d, got %s", SchemaMajor, describe(n))
}

func versionString(n *yaml.Node) (string, bool) {
	if n.Kind != yaml.ScalarNode {
		return "", false
	}
	switch n.ShortTag() {
	case "!!str", "!!int", "!!float":
		return n.Value, true
	}
	return "", false
}

// describe names what a node holds, for error messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!str":
			return "string " + quote.String(n.Value)
		case "!!int":
			return "integer " + quote.Bare(n.Value)
		case "!!float":
			return "number " + quote.Bare(n.Value)
		case "!!bool":
			return "boolean " + quote.Bare(n.Value)
		case "!!null":
			return "null"
		case "!!timestamp":
			return "timestamp " + quote.Bare(n.Value)
		}
		return quote.Bare(n.ShortTag()) + " " + quote.String(n.Value)
	}
	return "nothing"
}

func kindName(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int64:
		return "an integer"
	case reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	}
	return k.String()
}

// suggest names the field the writer probably meant, or lists the valid ones.
func suggest(name string, fields map[string]int) string {
	names := slices.Sorted(maps.Keys(fields))
	norm := func(s string) string {
		return strings.NewReplacer("-", "", "_", "", " ", "").Replace(strings.ToLower(s))
	}
	for _, f := range names {
		if len(name) > 2*len(f) { // not a misspelling of f, and maybe huge
			continue
		}
		if norm(f) == norm(name) || (len(name) > 3 && strdist.Levenshtein(f, name, 2) <= 2) {
			return fmt.Sprintf(" (did you mean %q?)", f)
		}
	}
	return " (valid fields: " + strings.Join(names, ", ") + ")"
}

var fieldCache sync.Map // reflect.Type -> map[string]int

// planFields maps the plan keys of a struct type (its json tag names) to field
// indexes.
func planFields(t reflect.Type) map[string]int {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string]int)
	}
	m := make(map[string]int, t.NumField())
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			m[name] = i
		}
	}
	fieldCache.Store(t, m)
	return m
}
