package hooksock_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/internal/hooksock"
)

func TestWireRoundTrip(t *testing.T) {
	req := &hooksock.Request{Agent: "codex", PlanFile: "/p/harnish.yaml", TaskID: "T1", WorkDir: "/w", HookLog: "/l/hooks.jsonl",
		Input: []byte(`{"tool_name":"Bash"}`)}
	got, err := hooksock.ReadRequest(bytes.NewReader(hooksock.AppendRequest(nil, req)))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(req, got); diff != "" {
		t.Errorf("request (-sent +read):\n%s", diff)
	}
	for _, a := range []*hooksock.Answer{{Code: 2, Message: "harnish guardrail x blocked this: y\n"}, {}, {Code: -1}} {
		got, err := hooksock.ReadAnswer(bytes.NewReader(hooksock.AppendAnswer(nil, a)))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(a, got); diff != "" {
			t.Errorf("answer (-sent +read):\n%s", diff)
		}
	}
}

func TestWireRefuses(t *testing.T) {
	full := hooksock.AppendRequest(nil, &hooksock.Request{Agent: "claude", WorkDir: "/w", Input: []byte("{}")})
	tests := map[string][]byte{
		"empty":           nil,
		"another version": append([]byte("HHQ2"), full[4:]...),
		"an answer":       hooksock.AppendAnswer(nil, &hooksock.Answer{}),
		"cut short":       full[:len(full)-1],
		"a huge field":    append([]byte("HHQ1"), 0xff, 0xff, 0xff, 0xff),
		"a huge input":    append(hooksock.AppendRequest(nil, &hooksock.Request{})[:4+5*4], 0x7f, 0xff, 0xff, 0xff),
	}
	for name, data := range tests {
		if _, err := hooksock.ReadRequest(bytes.NewReader(data)); !errors.Is(err, hooksock.ErrProtocol) {
			t.Errorf("%s: %v, want ErrProtocol", name, err)
		}
	}
	if _, err := hooksock.ReadAnswer(bytes.NewReader(append([]byte("HHA1\x00\x00\x00\x02"), 0x7f, 0xff, 0xff, 0xff))); !errors.Is(err, hooksock.ErrProtocol) {
		t.Errorf("a huge message: %v, want ErrProtocol", err)
	}
}

// FuzzReadRequest: any bytes decode to a request that encodes back to
// them, or fail with ErrProtocol; never a panic or an allocation past the
// limits.
func FuzzReadRequest(f *testing.F) {
	f.Add(hooksock.AppendRequest(nil, &hooksock.Request{Agent: "codex", WorkDir: "/w", Input: []byte(`{"tool_name":"Bash"}`)}))
	f.Add([]byte("HHQ1"))
	f.Add(hooksock.AppendAnswer(nil, &hooksock.Answer{Code: 2, Message: "no"}))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := hooksock.ReadRequest(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, hooksock.ErrProtocol) {
				t.Fatalf("error %v is not ErrProtocol", err)
			}
			return
		}
		if again := hooksock.AppendRequest(nil, r); !bytes.HasPrefix(data, again) {
			t.Fatalf("re-encoded %q is not the start of %q", again, data)
		}
	})
}

func FuzzReadAnswer(f *testing.F) {
	f.Add(hooksock.AppendAnswer(nil, &hooksock.Answer{Code: 2, Message: "harnish guardrail x blocked this: y\n"}))
	f.Add([]byte("HHA1\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := hooksock.ReadAnswer(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, hooksock.ErrProtocol) {
				t.Fatalf("error %v is not ErrProtocol", err)
			}
			return
		}
		if again := hooksock.AppendAnswer(nil, a); !bytes.HasPrefix(data, again) {
			t.Fatalf("re-encoded %q is not the start of %q", again, data)
		}
	})
}
