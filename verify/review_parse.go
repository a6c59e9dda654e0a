package verify

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ParseReview reads a reviewer program's answer: one JSON object with a
// "findings" array (which may be empty), each finding with a valid severity
// and a message. Blank space around the object is fine; anything else
// (no findings key, a finding without a message, a second value, text
// around the JSON) is an error wrapping [ErrProtocol], so that a reviewer
// that failed to answer is never taken for one that found nothing.
// Unknown fields are ignored.
func ParseReview(data []byte) (*Review, error) {
	var raw struct {
		Findings *[]json.RawMessage `json:"findings"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: empty answer, want {\"findings\": [...]}", ErrProtocol)
		}
		return nil, fmt.Errorf("%w: %v", ErrProtocol, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: data after the JSON object", ErrProtocol)
	}
	if raw.Findings == nil {
		return nil, fmt.Errorf("%w: no \"findings\" array in the answer", ErrProtocol)
	}
	r := &Review{Findings: make([]Finding, 0, len(*raw.Findings))}
	for i, fj := range *raw.Findings {
		var f Finding
		if err := json.Unmarshal(fj, &f); err != nil {
			return nil, fmt.Errorf("%w: findings[%d]: %v", ErrProtocol, i, err)
		}
		switch {
		case !f.Severity.Valid():
			return nil, fmt.Errorf("%w: findings[%d]: severity required (critical, high, medium or low)", ErrProtocol, i)
		case f.Message == "":
			return nil, fmt.Errorf("%w: findings[%d]: message required", ErrProtocol, i)
		case f.Line < 0:
			return nil, fmt.Errorf("%w: findings[%d]: line %d is negative", ErrProtocol, i, f.Line)
		}
		r.Findings = append(r.Findings, f)
	}
	return r, nil
}
