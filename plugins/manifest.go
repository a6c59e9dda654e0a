package plugins

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/Masterminds/semver/v3"
	"go.yaml.in/yaml/v3"
)

// Manifest lists the plugins a host may start. Its file form is YAML:
//
//	plugins:
//	  - name: msvc                 # how plans and logs name it
//	    path: bin/harnish-msvc     # relative to the manifest's directory
//	    sha256: 9f86d08...         # hex digest of the binary; required
//	    version: ">= 1.2, < 2"     # semver constraint on the plugin; optional
//	    timeout: 45m               # per-call deadline, covering the plugin's own; optional
//	    settings: {generator: Ninja}
//
// Unknown fields are errors.
type Manifest struct {
	Plugins []Spec
}

// Spec is one plugin of a [Manifest].
type Spec struct {
	// Name identifies the plugin: letters, digits, '.', '_' and '-'.
	Name string
	// Path is the plugin's executable. [ParseManifest] makes it absolute,
	// resolving it against the manifest's directory; [Open] resolves a
	// relative path of a Spec made by hand against the current directory,
	// never through PATH.
	Path string
	// SHA256 is the hex SHA-256 of the executable, checked before every
	// start.
	SHA256 string
	// Version is a semver constraint (Masterminds syntax) the plugin's
	// version must satisfy; empty accepts any version.
	Version string
	// Settings are handed to the plugin when it starts (its Configure).
	Settings map[string]string
	// Timeout bounds every call to the plugin, in addition to the caller's
	// context. Zero means DefaultTimeout, and DefaultGuardrailTimeout for
	// guardrail checks. A plugin with a time limit of its own (msvc's
	// "timeout", up to 24 h) is cut at this one: set it to cover the
	// plugin's. The start's Describe and Configure get at most
	// DefaultGuardrailTimeout, whatever Timeout says.
	Timeout time.Duration
}

// Call deadlines used when a [Spec] sets no Timeout. A guardrail answers
// before every agent action, so it gets far less time than a verification.
const (
	DefaultTimeout          = 30 * time.Minute
	DefaultGuardrailTimeout = 30 * time.Second
)

// ManifestError is a manifest that does not parse or validate. It names the
// file, the position and the field.
type ManifestError struct {
	File string
	// Line and Column are 1-based; zero when unknown.
	Line, Column int
	// Field is the path of the offending field, e.g. "plugins[1].sha256".
	Field string
	Err   error
}

// Error returns "plugins: FILE:LINE:COL: FIELD: cause".
func (e *ManifestError) Error() string {
	msg := "plugins: " + e.File
	if e.Line > 0 {
		msg += ":" + strconv.Itoa(e.Line) + ":" + strconv.Itoa(e.Column)
	}
	if e.Field != "" {
		msg += ": " + e.Field
	}
	return msg + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *ManifestError) Unwrap() error { return e.Err }

// LoadManifest reads and parses the manifest file at path.
func LoadManifest(path string) (*Manifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("plugins: %w", err)
	}
	return ParseManifest(path, data)
}

// ParseManifest parses a manifest read from file, whose directory relative
// plugin paths are resolved against. Every error is a [*ManifestError].
func ParseManifest(file string, data []byte) (*Manifest, error) {
	p := manifestParser{file: file}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &ManifestError{File: file, Err: errors.New("empty manifest")}
		}
		return nil, &ManifestError{File: file, Err: err}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, p.errAt(&extra, "", errors.New("more than one YAML document"))
	}
	if len(doc.Content) == 0 {
		return nil, &ManifestError{File: file, Err: errors.New("empty manifest")}
	}
	m, err := p.manifest(doc.Content[0])
	if err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(filepath.Dir(file))
	if err != nil {
		return nil, &ManifestError{File: file, Err: err}
	}
	for i := range m.Plugins {
		if !filepath.IsAbs(m.Plugins[i].Path) {
			m.Plugins[i].Path = filepath.Join(dir, filepath.FromSlash(m.Plugins[i].Path))
		}
	}
	return m, nil
}

type manifestParser struct{ file string }

func (p manifestParser) errAt(n *yaml.Node, field string, err error) error {
	return &ManifestError{File: p.file, Line: n.Line, Column: n.Column, Field: field, Err: err}
}

// each walks a mapping's pairs in order, rejecting duplicate keys.
func (p manifestParser) each(n *yaml.Node, field string, fn func(sub string, k, v *yaml.Node) error) error {
	if n.Kind != yaml.MappingNode {
		return p.errAt(n, field, errors.New("must be a mapping"))
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		sub := k.Value
		if field != "" {
			sub = field + "." + k.Value
		}
		if seen[k.Value] {
			return p.errAt(k, sub, errors.New("duplicate field"))
		}
		seen[k.Value] = true
		if err := fn(sub, k, v); err != nil {
			return err
		}
	}
	return nil
}

// fields walks a mapping of known keys; any other key is an error.
func (p manifestParser) fields(n *yaml.Node, field string, known map[string]func(sub string, v *yaml.Node) error) error {
	return p.each(n, field, func(sub string, k, v *yaml.Node) error {
		f, ok := known[k.Value]
		if !ok {
			return p.errAt(k, sub, errors.New("unknown field"))
		}
		return f(sub, v)
	})
}

func (p manifestParser) manifest(n *yaml.Node) (*Manifest, error) {
	m := &Manifest{}
	var pluginsNode *yaml.Node
	err := p.fields(n, "", map[string]func(sub string, v *yaml.Node) error{
		"plugins": func(_ string, v *yaml.Node) error {
			pluginsNode = v
			if v.Kind != yaml.SequenceNode {
				return p.errAt(v, "plugins", errors.New("must be a list"))
			}
			names := map[string]bool{}
			for i, item := range v.Content {
				field := "plugins[" + strconv.Itoa(i) + "]"
				s, err := p.spec(item, field)
				if err != nil {
					return err
				}
				if names[s.Name] {
					return p.errAt(item, field+".name", fmt.Errorf("duplicate plugin %q", s.Name))
				}
				names[s.Name] = true
				m.Plugins = append(m.Plugins, s)
			}
			return nil
		},
	})
	if err != nil {
		return nil, err
	}
	if pluginsNode == nil {
		return nil, p.errAt(n, "plugins", errors.New("missing"))
	}
	return m, nil
}

func (p manifestParser) scalar(v *yaml.Node, field string) (string, error) {
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		return "", p.errAt(v, field, errors.New("must be a string"))
	}
	return v.Value, nil
}

func (p manifestParser) spec(n *yaml.Node, field string) (Spec, error) {
	var s Spec
	pos := map[string]*yaml.Node{}
	str := func(dst *string) func(sub string, v *yaml.Node) error {
		return func(sub string, v *yaml.Node) error {
			pos[sub] = v
			val, err := p.scalar(v, sub)
			*dst = val
			return err
		}
	}
	var timeout string
	err := p.fields(n, field, map[string]func(sub string, v *yaml.Node) error{
		"name":    str(&s.Name),
		"path":    str(&s.Path),
		"sha256":  str(&s.SHA256),
		"version": str(&s.Version),
		"timeout": str(&timeout),
		"settings": func(sub string, v *yaml.Node) error {
			s.Settings = map[string]string{}
			return p.each(v, sub, func(sub string, k, v *yaml.Node) error {
				val, err := p.scalar(v, sub)
				s.Settings[k.Value] = val
				return err
			})
		},
	})
	if err != nil {
		return Spec{}, err
	}
	at := func(f string) *yaml.Node {
		if v, ok := pos[field+"."+f]; ok {
			return v
		}
		return n
	}
	if timeout != "" {
		d, err := time.ParseDuration(timeout)
		if err != nil {
			return Spec{}, p.errAt(at("timeout"), field+".timeout", fmt.Errorf("invalid duration %q", timeout))
		}
		s.Timeout = d
	}
	if f, err := s.validate(); err != nil {
		return Spec{}, p.errAt(at(f), field+"."+f, err)
	}
	return s, nil
}

var validName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9._-]+$`) })

// validate checks s, returning the offending field's key.
func (s *Spec) validate() (field string, err error) {
	switch {
	case !validName().MatchString(s.Name):
		return "name", fmt.Errorf("invalid plugin name %q: use letters, digits, '.', '_' and '-'", s.Name)
	case s.Path == "":
		return "path", errors.New("missing")
	case len(s.SHA256) != 64:
		return "sha256", fmt.Errorf("must be 64 hex digits, got %d characters", len(s.SHA256))
	case s.Timeout < 0:
		return "timeout", fmt.Errorf("negative duration %v", s.Timeout)
	}
	if _, err := hex.DecodeString(s.SHA256); err != nil {
		return "sha256", errors.New("must be 64 hex digits")
	}
	if s.Version != "" {
		if _, err := semver.NewConstraint(s.Version); err != nil {
			return "version", fmt.Errorf("invalid constraint %q: %v", s.Version, err)
		}
	}
	return "", nil
}
