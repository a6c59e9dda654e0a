package task

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// parseJSON reads a .json plan with encoding/json, held to JSON's own syntax,
// into the node tree the decoder walks, with lines and columns. Reading JSON
// as YAML instead would relax its syntax and reject some valid JSON (escaped
// surrogate pairs, a key and its colon on different lines, long keys).
func parseJSON(name string, data []byte) (*yaml.Node, error) {
	if err := checkJSON(name, data); err != nil {
		return nil, err
	}
	p := &jsonParser{data: data, dec: json.NewDecoder(bytes.NewReader(data)), line: 1, col: 1}
	p.dec.UseNumber()
	n, err := p.value()
	if err != nil {
		// checkJSON accepted the input, so this is not expected; report it
		// rather than trust it.
		line, col := p.at(p.dec.InputOffset())
		return nil, Problems{{File: name, Line: line, Column: col, Message: err.Error(), Err: ErrSyntax}}
	}
	return n, nil
}

// checkJSON reports a JSON syntax error, or data after the value, with its
// line and column.
func checkJSON(name string, data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	var v json.RawMessage
	err := dec.Decode(&v)
	if err == nil {
		off := dec.InputOffset()
		rest := bytes.TrimLeft(data[off:], " \t\r\n")
		if len(rest) == 0 {
			return nil
		}
		line, col := lineCol(data, int64(len(data)-len(rest)))
		return Problems{{File: name, Line: line, Column: col,
			Message: "unexpected data after the JSON value; a plan is one JSON object", Err: ErrSyntax}}
	}
	if errors.Is(err, io.EOF) {
		return emptyPlan(name)
	}
	off := int64(len(data)) // io.ErrUnexpectedEOF: the input ended early
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		off = syn.Offset - 1 // Offset is just after the offending byte
	}
	line, col := lineCol(data, off)
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if errors.Is(err, io.ErrUnexpectedEOF) {
		msg = "unexpected end of JSON input"
	}
	return Problems{{File: name, Line: line, Column: col, Message: msg, Err: ErrSyntax}}
}

// lineCol turns a byte offset into a 1-based line and column. Columns count
// characters, as yaml.v3's do.
func lineCol(data []byte, off int64) (int, int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
	return line, col
}

// jsonParser builds yaml nodes from JSON tokens. Offsets only grow, so it
// tracks the line and column incrementally.
type jsonParser struct {
	data      []byte
	dec       *json.Decoder
	off       int64 // the offset line and col describe
	line, col int
}

// at returns the line and column of the first token at or after off.
func (p *jsonParser) at(off int64) (int, int) {
	for off < int64(len(p.data)) && strings.IndexByte(" \t\r\n,:", p.data[off]) >= 0 {
		off++
	}
	for ; p.off < off; p.off++ {
		switch b := p.data[p.off]; {
		case b == '\n':
			p.line, p.col = p.line+1, 1
		case b&0xC0 != 0x80: // not a UTF-8 continuation byte
			p.col++
		}
	}
	return p.line, p.col
}

func (p *jsonParser) value() (*yaml.Node, error) {
	line, col := p.at(p.dec.InputOffset())
	tok, err := p.dec.Token()
	if err != nil {
		return nil, err
	}
	n := &yaml.Node{Line: line, Column: col}
	switch tok := tok.(type) {
	case json.Delim:
		switch tok {
		case '{':
			n.Kind, n.Tag, n.Style = yaml.MappingNode, "!!map", yaml.FlowStyle
			for p.dec.More() {
				k, err := p.value()
				if err != nil {
					return nil, err
				}
				v, err := p.value()
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, k, v)
			}
		case '[':
			n.Kind, n.Tag, n.Style = yaml.SequenceNode, "!!seq", yaml.FlowStyle
			for p.dec.More() {
				v, err := p.value()
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, v)
			}
		default:
			return nil, fmt.Errorf("unexpected %q", rune(tok))
		}
		if _, err := p.dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
		return n, nil
	case string:
		n.Kind, n.Tag, n.Value, n.Style = yaml.ScalarNode, "!!str", tok, yaml.DoubleQuotedStyle
	case json.Number:
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!int", tok.String()
		if strings.ContainsAny(tok.String(), ".eE") {
			n.Tag = "!!float"
		}
	case bool:
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!bool", fmt.Sprint(tok)
	case nil:
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!null", "null"
	}
	return n, nil
}
