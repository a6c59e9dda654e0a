// Command gen converts gitleaks' default configuration (config/gitleaks.toml
// in github.com/gitleaks/gitleaks, MIT licensed) into gitleaks.json, the
// rule data of package secretrules:
//
//	go run ./guardrail/internal/secretrules/gen -version v8.30.1 \
//	    < gitleaks/config/gitleaks.toml > guardrail/internal/secretrules/gitleaks.json
//
// and, with -go, gitleaks.json into rules_gen.go, the same data as Go
// source, which is what the package compiles in (go generate in the
// package runs it):
//
//	go run ./gen -go -i gitleaks.json -o rules_gen.go
//
// It reads the part of TOML that file uses: [table] and [[array]] headers,
// key = value with ”'...”' literals, '...' and "..." strings, numbers,
// and arrays of strings over several lines, with # comments.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/harnish/harnish/guardrail/internal/secretrules"
)

// The output: what package secretrules reads.
type (
	config struct {
		Source    string    `json:"source"`
		Version   string    `json:"version"`
		Allowlist allowlist `json:"allowlist"`
		Rules     []rule    `json:"rules"`
	}
	rule struct {
		ID          string      `json:"id"`
		Description string      `json:"description,omitempty"`
		Regex       string      `json:"regex,omitempty"`
		Path        string      `json:"path,omitempty"`
		Entropy     float64     `json:"entropy,omitempty"`
		SecretGroup int         `json:"secretGroup,omitempty"`
		Keywords    []string    `json:"keywords,omitempty"`
		Allowlists  []allowlist `json:"allowlists,omitempty"`
	}
	allowlist struct {
		Condition   string   `json:"condition,omitempty"`
		RegexTarget string   `json:"regexTarget,omitempty"`
		Regexes     []string `json:"regexes,omitempty"`
		Paths       []string `json:"paths,omitempty"`
		Stopwords   []string `json:"stopwords,omitempty"`
	}
)

func main() {
	version := flag.String("version", "", "the gitleaks version the file is from")
	goSrc := flag.Bool("go", false, "read gitleaks.json and write rules_gen.go")
	in := flag.String("i", "", "with -go, the file to read (default standard input)")
	out := flag.String("o", "", "the file to write (default standard output)")
	flag.Parse()
	if *goSrc {
		r := os.Stdin
		if *in != "" {
			f, err := os.Open(*in)
			if err != nil {
				fmt.Fprintln(os.Stderr, "gen:", err)
				os.Exit(1)
			}
			defer f.Close()
			r = f
		}
		if err := writeGo(r, *out); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		return
	}
	cfg, err := parse(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	cfg.Source = "github.com/gitleaks/gitleaks config/gitleaks.toml (MIT License, Copyright (c) 2019 Zachary Rice)"
	cfg.Version = *version
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// writeGo reads gitleaks.json from r and writes its Go source to the file
// out, or to standard output when out is "".
func writeGo(r io.Reader, out string) error {
	var cfg secretrules.Config
	dec := json.NewDecoder(io.LimitReader(r, 16<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return fmt.Errorf("gitleaks.json: %w", err)
	}
	src, err := secretrules.GoSource(&cfg)
	if err != nil {
		return err
	}
	if out == "" {
		_, err = os.Stdout.Write(src)
		return err
	}
	return os.WriteFile(out, src, 0o644)
}

// parse reads the configuration; errors name the line.
func parse(r io.Reader) (*config, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	p := &parser{src: string(data), line: 1}
	cfg := &config{}
	var table string
	for {
		p.skipSpace(true)
		if p.i >= len(p.src) {
			return cfg, nil
		}
		switch {
		case strings.HasPrefix(p.src[p.i:], "[["):
			end := strings.Index(p.src[p.i:], "]]")
			if end < 0 {
				return nil, p.errorf("unterminated [[")
			}
			table = p.src[p.i+2 : p.i+end]
			p.i += end + 2
			switch table {
			case "rules":
				cfg.Rules = append(cfg.Rules, rule{})
			case "rules.allowlists":
				if len(cfg.Rules) == 0 {
					return nil, p.errorf("[[rules.allowlists]] before [[rules]]")
				}
				r := &cfg.Rules[len(cfg.Rules)-1]
				r.Allowlists = append(r.Allowlists, allowlist{})
			default:
				return nil, p.errorf("unknown table [[%s]]", table)
			}
		case p.src[p.i] == '[':
			end := strings.IndexByte(p.src[p.i:], ']')
			if end < 0 {
				return nil, p.errorf("unterminated [")
			}
			table = p.src[p.i+1 : p.i+end]
			p.i += end + 1
		default:
			key, value, err := p.keyValue()
			if err != nil {
				return nil, err
			}
			if err := set(cfg, table, key, value); err != nil {
				return nil, p.errorf("%v", err)
			}
		}
	}
}

func set(cfg *config, table, key string, v any) error {
	str := func() (string, error) {
		s, ok := v.(string)
		if !ok {
			return "", fmt.Errorf("%s: want a string", key)
		}
		return s, nil
	}
	num := func() (float64, error) {
		f, ok := v.(float64)
		if !ok {
			return 0, fmt.Errorf("%s: want a number", key)
		}
		return f, nil
	}
	strs := func() ([]string, error) {
		list, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("%s: want an array", key)
		}
		var out []string
		for _, x := range list {
			s, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("%s: want an array of strings", key)
			}
			out = append(out, s)
		}
		return out, nil
	}
	var err error
	var al *allowlist
	switch table {
	case "":
		return nil // title, minVersion
	case "allowlist":
		al = &cfg.Allowlist
	case "rules.allowlists":
		if len(cfg.Rules) == 0 || len(cfg.Rules[len(cfg.Rules)-1].Allowlists) == 0 {
			return fmt.Errorf("%s outside a [[rules.allowlists]]", key)
		}
		r := &cfg.Rules[len(cfg.Rules)-1]
		al = &r.Allowlists[len(r.Allowlists)-1]
	case "rules":
		if len(cfg.Rules) == 0 {
			return fmt.Errorf("%s outside a [[rules]]", key)
		}
		r := &cfg.Rules[len(cfg.Rules)-1]
		switch key {
		case "id":
			r.ID, err = str()
		case "description":
			r.Description, err = str()
		case "regex":
			r.Regex, err = str()
		case "path":
			r.Path, err = str()
		case "entropy":
			r.Entropy, err = num()
		case "secretGroup":
			var f float64
			f, err = num()
			r.SecretGroup = int(f)
		case "keywords":
			r.Keywords, err = strs()
		default:
			return fmt.Errorf("unknown rule key %q", key)
		}
		return err
	default:
		return fmt.Errorf("unknown table %q", table)
	}
	switch key {
	case "description":
	case "condition":
		al.Condition, err = str()
	case "regexTarget":
		al.RegexTarget, err = str()
	case "regexes":
		al.Regexes, err = strs()
	case "paths":
		al.Paths, err = strs()
	case "stopwords":
		al.Stopwords, err = strs()
	default:
		return fmt.Errorf("unknown allowlist key %q", key)
	}
	return err
}

type parser struct {
	src  string
	i    int
	line int
}

func (p *parser) errorf(format string, a ...any) error {
	return fmt.Errorf("line %d: %s", p.line, fmt.Sprintf(format, a...))
}

// skipSpace skips blanks and comments, and newlines when nl is set.
func (p *parser) skipSpace(nl bool) {
	for p.i < len(p.src) {
		switch c := p.src[p.i]; {
		case c == '\n' && nl:
			p.line++
			p.i++
		case c == ' ' || c == '\t' || c == '\r' || c == ',' && nl:
			p.i++
		case c == '#':
			for p.i < len(p.src) && p.src[p.i] != '\n' {
				p.i++
			}
		default:
			return
		}
	}
}

func (p *parser) keyValue() (string, any, error) {
	start := p.i
	for p.i < len(p.src) && p.src[p.i] != '=' && p.src[p.i] != '\n' {
		p.i++
	}
	if p.i >= len(p.src) || p.src[p.i] != '=' {
		return "", nil, p.errorf("want key = value")
	}
	key := strings.TrimSpace(p.src[start:p.i])
	p.i++
	p.skipSpace(false)
	v, err := p.value()
	return key, v, err
}

func (p *parser) value() (any, error) {
	if p.i >= len(p.src) {
		return nil, p.errorf("missing value")
	}
	switch c := p.src[p.i]; {
	case strings.HasPrefix(p.src[p.i:], "'''"):
		end := strings.Index(p.src[p.i+3:], "'''")
		if end < 0 {
			return nil, p.errorf("unterminated '''")
		}
		s := p.src[p.i+3 : p.i+3+end]
		p.line += strings.Count(s, "\n")
		p.i += end + 6
		return strings.TrimPrefix(s, "\n"), nil
	case c == '\'':
		end := strings.IndexByte(p.src[p.i+1:], '\'')
		if end < 0 {
			return nil, p.errorf("unterminated '")
		}
		s := p.src[p.i+1 : p.i+1+end]
		p.i += end + 2
		return s, nil
	case c == '"':
		j := p.i + 1
		for j < len(p.src) && p.src[j] != '"' {
			if p.src[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(p.src) {
			return nil, p.errorf("unterminated \"")
		}
		s, err := strconv.Unquote(p.src[p.i : j+1])
		if err != nil {
			return nil, p.errorf("string: %v", err)
		}
		p.i = j + 1
		return s, nil
	case c == '[':
		p.i++
		var out []any
		for {
			p.skipSpace(true)
			if p.i >= len(p.src) {
				return nil, p.errorf("unterminated array")
			}
			if p.src[p.i] == ']' {
				p.i++
				return out, nil
			}
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
	default:
		start := p.i
		for p.i < len(p.src) && strings.IndexByte("0123456789.-+eE_", p.src[p.i]) >= 0 {
			p.i++
		}
		f, err := strconv.ParseFloat(strings.ReplaceAll(p.src[start:p.i], "_", ""), 64)
		if err != nil {
			return nil, p.errorf("value %q: %v", p.src[start:p.i], err)
		}
		return f, nil
	}
}
