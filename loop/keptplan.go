package loop

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/harnish/harnish/internal/fsx"
	"github.com/harnish/harnish/task"
)

// keptPlanCache is the decoded copy of the kept plan, beside it: the plan
// as JSON of its Go fields, with the digest of the file it was parsed
// from. Parsing and validating a big YAML plan is most of a resume's start
// (a quarter of a second at 10,000 tasks); decoding the copy is a small
// part of that. The YAML (or JSON) file stays the plan of record, which a
// person reads and edits: a copy whose digest does not match it is not
// used.
const keptPlanCache = "plan.decoded.json"

// cachedPlan is what keptPlanCache holds.
type cachedPlan struct {
	// Source is "sha256:HEX" of the kept plan file's bytes.
	Source string `json:"source"`
	// Sum is "sha256:HEX" of Plan's bytes, so a copy damaged on disk is
	// not taken for the plan.
	Sum  string          `json:"sum"`
	Plan json.RawMessage `json:"plan"`
}

// KeepPlan copies the plan in file into a run's state directory, as
// plan.yaml or plan.json, so a resume and the agents' hooks carry out the
// plan the run started with, whatever happens to the file. Beside it goes a
// decoded copy, which LoadKeptPlan reads instead while it matches.
func KeepPlan(stateDir, file string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	name := "plan.yaml"
	if strings.EqualFold(filepath.Ext(file), ".json") {
		name = "plan.json"
	}
	if err := os.MkdirAll(stateDir, 0o755); err != nil {
		return err
	}
	kept := filepath.Join(stateDir, name)
	if err := fsx.WriteFile(kept, data, 0o644); err != nil {
		return err
	}
	// The other form's file, from an earlier keep, must not be the one
	// found: KeptPlanFile looks for plan.yaml first.
	for _, other := range []string{"plan.yaml", "plan.json"} {
		if other != name {
			os.Remove(filepath.Join(stateDir, other))
		}
	}
	os.Remove(filepath.Join(stateDir, keptPlanCache))
	if plan, err := task.Parse(kept, data); err == nil {
		cachePlan(stateDir, data, plan)
	}
	return nil
}

// LoadKeptPlan loads the plan a run keeps in stateDir: from its decoded
// copy when that was made from the kept file as it is, else by parsing the
// file (and then the copy is made again, for the next load).
func LoadKeptPlan(stateDir string) (*task.Plan, error) {
	path := KeptPlanFile(stateDir)
	if path == "" {
		return nil, fmt.Errorf("loop: no plan.yaml or plan.json in %s: start a run with \"harnish run\"", stateDir)
	}
	if st, err := os.Stat(path); err != nil || st.Size() > task.MaxPlanSize {
		return task.Load(path) // its error
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("task: %w", err)
	}
	if plan := cachedKeptPlan(stateDir, data); plan != nil {
		return plan, nil
	}
	plan, err := task.Parse(path, data)
	if err != nil {
		return nil, err
	}
	cachePlan(stateDir, data, plan)
	return plan, nil
}

// KeptPlanFile returns the path of the plan a run keeps in stateDir, or ""
// when it keeps none.
func KeptPlanFile(stateDir string) string {
	for _, name := range []string{"plan.yaml", "plan.json"} {
		path := filepath.Join(stateDir, name)
		if _, err := os.Stat(path); err == nil {
			return path
		}
	}
	return ""
}

func sourceDigest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// cachedKeptPlan returns the plan of the decoded copy in stateDir when it
// was made from data, the kept file's bytes; nil when there is none, it
// does not decode, or it was made from other bytes.
func cachedKeptPlan(stateDir string, data []byte) *task.Plan {
	raw, err := os.ReadFile(filepath.Join(stateDir, keptPlanCache))
	if err != nil || int64(len(raw)) > 4*task.MaxPlanSize {
		return nil
	}
	return decodeCachedPlan(raw, sourceDigest(data))
}

// decodeCachedPlan decodes a decoded copy's bytes, and returns its plan
// when it was made from the source of the digest given; else nil.
func decodeCachedPlan(raw []byte, digest string) *task.Plan {
	var c cachedPlan
	if err := json.Unmarshal(raw, &c); err != nil || c.Source != digest || c.Sum != sourceDigest(c.Plan) {
		return nil
	}
	var plan task.Plan
	dec := json.NewDecoder(bytes.NewReader(c.Plan))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&plan); err != nil {
		return nil
	}
	return &plan
}

// cachePlan writes the decoded copy of plan, parsed from data, into
// stateDir, if its JSON gives back the very plan: a field whose nil and
// empty values differ (an empty list the JSON leaves out) would come back
// otherwise, and such a plan is parsed at each load instead. A copy that
// cannot be written is no error: the file of record is there.
func cachePlan(stateDir string, data []byte, plan *task.Plan) {
	pj, err := json.Marshal(plan)
	if err != nil {
		return
	}
	c := cachedPlan{Source: sourceDigest(data), Sum: sourceDigest(pj), Plan: pj}
	raw, err := json.Marshal(c)
	if err != nil {
		return
	}
	back := decodeCachedPlan(raw, c.Source)
	if back == nil || !sameExported(reflect.ValueOf(plan).Elem(), reflect.ValueOf(back).Elem()) {
		return
	}
	fsx.WriteFile(filepath.Join(stateDir, keptPlanCache), raw, 0o644)
}

// sameExported reports whether a and b, of one type, hold the same values
// in every exported field, telling nil from empty; unexported fields (the
// parse's record of where each field was) are not compared.
func sameExported(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return sameExported(a.Elem(), b.Elem())
	case reflect.Struct:
		t := a.Type()
		for i := range t.NumField() {
			if t.Field(i).IsExported() && !sameExported(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Slice:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !sameExported(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		for _, k := range a.MapKeys() {
			bv := b.MapIndex(k)
			if !bv.IsValid() || !sameExported(a.MapIndex(k), bv) {
				return false
			}
		}
		return true
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return a.Elem().Type() == b.Elem().Type() && sameExported(a.Elem(), b.Elem())
	case reflect.Float32, reflect.Float64:
		return a.Float() == b.Float()
	default:
		return a.Equal(b)
	}
}
