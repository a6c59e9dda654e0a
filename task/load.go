package task

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/harnish/harnish/task/internal/quote"
	"github.com/harnish/harnish/task/internal/source"
)

// MaxPlanSize is the largest plan, in bytes, that [Load] and [Parse] read:
// far beyond a plan written by hand or tool (10,000 tasks take 2.4 MB), yet
// small enough that a wrong or hostile file costs little. A larger plan is
// an [ErrTooLarge] problem.
const MaxPlanSize = 4 << 20

// Load reads and parses the plan file at path; see [Parse]. It reads at most
// [MaxPlanSize]+1 bytes. An error reading the file is returned as it is,
// wrapped; every other error is [Problems].
func Load(path string) (*Plan, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("task: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > MaxPlanSize {
		return nil, tooLarge(path, strconv.FormatInt(st.Size(), 10)+" bytes")
	}
	// A pipe, or a file that grows, is cut short.
	data, err := io.ReadAll(io.LimitReader(f, MaxPlanSize+1))
	if err != nil {
		return nil, fmt.Errorf("task: %w", err)
	}
	if len(data) > MaxPlanSize {
		return nil, tooLarge(path, "more than "+strconv.Itoa(MaxPlanSize)+" bytes")
	}
	return Parse(path, data)
}

func tooLarge(name, size string) error {
	return Problems{{File: name, Err: ErrTooLarge,
		Message: fmt.Sprintf("the file is %s, over the limit of %d bytes (%d MiB) for a plan", size, MaxPlanSize, MaxPlanSize>>20)}}
}

// Parse decodes a plan strictly and validates it. name is the file name used
// in problems; a name ending in ".json" is read as JSON, anything else as YAML.
//
// Every problem is reported at once: syntax, then the schema (unknown fields,
// duplicate keys, wrong types, bad durations) together with [Plan.Validate]'s
// problems of what did decode. A field that does not decode is left out, and
// so are validation problems that may only repeat it: those about the field
// itself, and "required" and the like in the object that holds it, where the
// missing field may be the one misspelled. A syntax error is reported alone,
// as is a plan whose version names a schema major this package does not read
// ([ErrUnsupportedVersion]), since its other fields follow a schema unknown
// here, and a plan larger than [MaxPlanSize] ([ErrTooLarge]). The error, when
// not nil, is a [Problems], warnings included, in source order. Warnings
// alone, such as a task without acceptance criteria, do not fail Parse;
// [Plan.Validate] reports them.
func Parse(name string, data []byte) (*Plan, error) {
	if len(data) > MaxPlanSize {
		return nil, tooLarge(name, strconv.Itoa(len(data))+" bytes")
	}
	root, err := parseNode(name, data)
	if err != nil {
		return nil, err
	}
	if p := checkVersion(name, root); p != nil {
		return nil, Problems{*p}
	}
	d := &decoder{file: name, pos: make(map[string]source.Position), unread: source.NewUnread()}
	p := &Plan{}
	d.decode(root, reflect.ValueOf(p).Elem(), "")
	if d.stopped {
		return nil, d.problems // too little decoded to validate
	}
	// The fields that could not be read matter only to this validation: a
	// plan with any is not returned.
	src := &source.File{Name: name, Pos: d.pos, Unread: d.unread}
	source.Attach(p, src)
	ps := append(d.problems, p.Validate()...)
	src.Unread = nil
	slices.SortStableFunc(ps, func(a, b Problem) int {
		return cmp.Or(a.Line-b.Line, a.Column-b.Column) // in source order
	})
	if ps.Err() != nil {
		return nil, ps
	}
	return p, nil
}

func parseNode(name string, data []byte) (*yaml.Node, error) {
	if strings.EqualFold(filepath.Ext(name), ".json") {
		return parseJSON(name, data)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, emptyPlan(name)
		}
		return nil, yamlProblem(name, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, yamlProblem(name, err)
		}
		return nil, Problems{{File: name, Line: extra.Line, Column: extra.Column,
			Message: "more than one YAML document; a plan is one document", Err: ErrSyntax}}
	}
	if len(doc.Content) == 0 {
		return nil, emptyPlan(name)
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return nil, emptyPlan(name) // "---" and nothing else
	}
	return root, nil
}

func emptyPlan(name string) error {
	return Problems{{File: name, Message: "empty plan", Err: ErrSchema}}
}

// checkVersion looks at the version before anything else, so that a plan of
// another schema major is reported as such instead of as unknown fields.
func checkVersion(name string, root *yaml.Node) *Problem {
	if root.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, val := root.Content[i], root.Content[i+1]
		if key.Kind != yaml.ScalarNode || key.Value != versionField {
			continue
		}
		n := val
		for n.Kind == yaml.AliasNode && n.Alias != nil {
			n = n.Alias
		}
		s, ok := versionString(n)
		if !ok {
			return nil // the decoder reports the wrong type
		}
		// The model alone knows which versions it reads.
		for _, p := range (&Plan{Version: s}).Validate() {
			if p.Err == ErrUnsupportedVersion {
				p.File, p.Line, p.Column = name, val.Line, val.Column
				return &p
			}
		}
		return nil
	}
	return nil
}

var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): (.*)$`) })

func yamlProblem(name string, err error) error {
	msg := err.Error()
	p := Problem{File: name, Message: strings.TrimPrefix(msg, "yaml: "), Err: ErrSyntax}
	if m := yamlLine().FindStringSubmatch(msg); m != nil {
		p.Line, _ = strconv.Atoi(m[1])
		p.Message = m[2]
		// yaml.v3 numbers the lines of scanner errors from 1 but those of
		// parser errors from 0.
		for _, prefix := range yamlParserErrors {
			if strings.HasPrefix(p.Message, prefix) {
				p.Line++
				break
			}
		}
	}
	// yaml.v3's messages are short but for the names of anchors they quote.
	p.Message = quote.Cut(p.Message, 4*quote.Max)
	return Problems{p}
}

// yamlParserErrors are the messages of yaml.v3's parser (parserc.go), as
// opposed to its scanner.
var yamlParserErrors = []string{
	"did not find expected ',' or ",
	"did not find expected '-' indicator",
	"did not find expected <document start>",
	"did not find expected <stream-start>",
	"did not find expected key",
	"did not find expected node content",
	"found duplicate %",
	"found incompatible YAML document",
	"found undefined tag handle",
}
