package asset_test

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// oracleEngine re-implements, for tests, the rules of the harnish engine
// (github.com/jazz1x/harnish) that a shared store depends on, as its
// scripts have them at commit 559e70e (v0.1.0; its scripts/harnish_py is
// the same at 42c5405, v0.3.0, but for cli.py's Python version gate). It is
// the test oracle where the engine's checkout is not at hand (CI cannot
// fetch it: it is in no package registry), and TestEngineOracle holds it to
// the real scripts when HARNISH_ENGINE_DIR names a checkout. Each rule names
// the file it comes from. It writes JSON as the engine does (compact, keys
// in the order the engine puts them).
type oracleEngine struct{}

// obj is a JSON object with its keys in order, as a Python dict keeps them.
type obj []member

type member struct {
	k string
	v json.RawMessage
}

func (o obj) get(k string) (json.RawMessage, bool) {
	for _, m := range o {
		if m.k == k {
			return m.v, true
		}
	}
	return nil, false
}

func (o obj) str(k string) string {
	var s string
	if v, ok := o.get(k); ok {
		json.Unmarshal(v, &s)
	}
	return s
}

func (o obj) tags() []string {
	var t []string
	if v, ok := o.get("tags"); ok {
		json.Unmarshal(v, &t)
	}
	return t
}

// set replaces k's value, or adds k at the end (dict assignment).
func (o obj) set(k string, v any) obj {
	b, _ := json.Marshal(v)
	for i := range o {
		if o[i].k == k {
			o[i].v = b
			return o
		}
	}
	return append(o, member{k, b})
}

// truthy is Python's truth of a JSON value.
func truthy(v json.RawMessage) bool {
	switch s := string(v); s {
	case "", "false", "null", "0", `""`, "[]", "{}":
		return false
	}
	return true
}

func (o obj) MarshalJSON() ([]byte, error) {
	// io.py compact_json: separators (",", ":"), ensure_ascii=False.
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.k)
		b.Write(k)
		b.WriteByte(':')
		var c bytes.Buffer
		json.Compact(&c, m.v)
		b.Write(c.Bytes())
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func parseObj(b []byte) (obj, bool) {
	d := json.NewDecoder(bytes.NewReader(b))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	var o obj
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return nil, false
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, false
		}
		o = append(o, member{t.(string), v})
	}
	if _, err := d.Token(); err != nil {
		return nil, false
	}
	if _, err := d.Token(); err == nil {
		return nil, false // more after the object
	}
	return o, true
}

// read is io.py jsonl_read: skip blank lines; strip each line and add it to
// a buffer; yield the buffer when it parses, else add a space and go on (so a
// record may span lines); what is left at the end is dropped.
func (oracleEngine) read(path string) []obj {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out []obj
	buf := ""
	for line := range strings.Lines(string(data)) {
		s := strings.TrimSpace(line)
		if s == "" {
			continue
		}
		buf += s
		if o, ok := parseObj([]byte(buf)); ok {
			out = append(out, o)
			buf = ""
		} else {
			buf += " "
		}
	}
	return out
}

// rewrite is io.py jsonl_rewrite: every record, compact, one a line.
func (oracleEngine) rewrite(path string, recs []obj) error {
	var b bytes.Buffer
	for _, r := range recs {
		j, _ := r.MarshalJSON()
		b.Write(j)
		b.WriteByte('\n')
	}
	tmp := path + ".oracle.tmp"
	if err := os.WriteFile(tmp, b.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func assetsFile(base string) string { return filepath.Join(base, "harnish-assets.jsonl") }

// slugify is common.py slugify.
func engineSlugify(text string) string {
	s := regexp.MustCompile(`[^a-z0-9-]`).ReplaceAllString(strings.ToLower(text), "-")
	s = strings.Trim(regexp.MustCompile(`-+`).ReplaceAllString(s, "-"), "-")
	if len(s) > 60 {
		s = s[:60]
	}
	if s != "" && s != "-" {
		return s
	}
	sum := md5.Sum([]byte(text))
	return hex.EncodeToString(sum[:])[:12]
}

// typeExtras is asset.py TYPE_EXTRAS.
var typeExtras = map[string]obj{
	"failure":   {{"resolved", json.RawMessage(`true`)}},
	"pattern":   {{"stability", json.RawMessage(`1`)}},
	"snippet":   {{"stability", json.RawMessage(`1`)}},
	"guardrail": {{"level", json.RawMessage(`"soft"`)}},
	"decision":  {{"confidence", json.RawMessage(`"medium"`)}},
}

// record is record.py record-asset with --type, --title, --tags (scope
// "generic", session "manual", empty body and context).
func (e oracleEngine) record(base, typ, title, tags string) error {
	path := assetsFile(base)
	if err := os.MkdirAll(base, 0o755); err != nil { // init.py init_assets
		return err
	}
	slug := engineSlugify(title)
	existing := map[string]bool{}
	recs := e.read(path)
	for _, r := range recs {
		existing[r.str("slug")] = true
	}
	for n, b := 2, slug; existing[slug]; n++ {
		slug = fmt.Sprintf("%s-%d", b, n)
	}
	tagList := []string{}
	for _, t := range strings.Split(tags, ",") {
		if t = strings.TrimSpace(t); t != "" {
			tagList = append(tagList, t)
		}
	}
	now := time.Now().UTC()
	r := obj{}.set("type", typ).set("slug", slug).set("title", title).set("tags", tagList).
		set("date", now.Format(time.DateOnly)).set("scope", "generic").set("body", "").set("context", "").
		set("session", "manual").set("schema_version", "0.0.2").set("last_accessed_at", now.Format("2006-01-02T15:04:05Z")).
		set("access_count", 0)
	r = append(r, typeExtras[typ]...)
	// asset.py _append_record: copy the file and the record, rename.
	old, _ := os.ReadFile(path)
	j, _ := r.MarshalJSON()
	tmp := path + ".oracle.tmp"
	if err := os.WriteFile(tmp, append(append(old, j...), '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// query is query.py query-assets --tags (limit 5, no types): records not
// "compressed": true with any of the tags, in file order, at most 5; then
// every record of a matched slug gets last_accessed_at now and access_count
// + 1, and the file is rewritten. It returns the matched slugs.
func (e oracleEngine) query(base, tags string) ([]string, error) {
	path := assetsFile(base)
	var want []string
	for _, t := range strings.Split(tags, ",") {
		if t = strings.TrimSpace(t); t != "" {
			want = append(want, t)
		}
	}
	recs := e.read(path)
	var slugs []string
	for _, r := range recs {
		if v, _ := r.get("compressed"); string(v) == "true" {
			continue
		}
		if slices.ContainsFunc(want, func(t string) bool { return slices.Contains(r.tags(), t) }) {
			slugs = append(slugs, r.str("slug"))
		}
		if len(slugs) >= 5 {
			break
		}
	}
	if len(slugs) == 0 {
		return nil, nil
	}
	now := time.Now().UTC().Format("2006-01-02T15:04:05Z")
	for i, r := range recs {
		if slices.Contains(slugs, r.str("slug")) {
			var n int
			if v, ok := r.get("access_count"); ok {
				json.Unmarshal(v, &n)
			}
			recs[i] = r.set("last_accessed_at", now).set("access_count", n+1)
		}
	}
	return slugs, e.rewrite(path, recs)
}

// ttlDays is purge.py TTL_DAYS; a type not in it gets 180.
var ttlDays = map[string]int{"decision": 365, "failure": 90, "snippet": 180, "pattern": -1, "guardrail": -1}

// purgeCandidate is purge.py _is_purge_candidate: by "date" alone, read as
// %Y-%m-%d in local time (anything else is the epoch), older than the
// type's TTL and than 24 hours; a decision only if never accessed.
func purgeCandidate(r obj, now time.Time) bool {
	typ := r.str("type")
	ttl, ok := ttlDays[typ]
	if !ok {
		ttl = 180
	}
	if ttl < 0 {
		return false
	}
	date := "1970-01-01"
	if v, ok := r.get("date"); ok {
		json.Unmarshal(v, &date)
	}
	created, err := time.ParseInLocation(time.DateOnly, date, time.Local)
	if err != nil {
		created = time.Unix(0, 0)
	}
	age := now.Sub(created)
	if age <= time.Duration(ttl)*24*time.Hour || age <= 24*time.Hour {
		return false
	}
	if typ == "decision" {
		var n int
		if v, ok := r.get("access_count"); ok {
			json.Unmarshal(v, &n)
		}
		return n < 1
	}
	return true
}

// purge is purge.py purge-assets --execute: the candidates go to the
// archive, the rest stay. It returns the slugs purged.
func (e oracleEngine) purge(base string) ([]string, error) {
	path := assetsFile(base)
	var keep []obj
	var gone []string
	now := time.Now()
	for _, r := range e.read(path) {
		if purgeCandidate(r, now) {
			gone = append(gone, r.str("slug"))
		} else {
			keep = append(keep, r)
		}
	}
	if len(gone) == 0 {
		return nil, nil
	}
	return gone, e.rewrite(path, keep)
}

// thresholds is thresholds.py check-thresholds: how many records carry each
// tag, records with a truthy "compressed" aside.
func (e oracleEngine) thresholds(base string) (map[string]int, error) {
	counts := map[string]int{}
	for _, r := range e.read(assetsFile(base)) {
		if v, _ := r.get("compressed"); truthy(v) {
			continue
		}
		for _, t := range r.tags() {
			counts[t]++
		}
	}
	return counts, nil
}

// compress is compress.py compress-assets --tag T: the records with T, not
// compressed, are marked "compressed": true and a summary
// "compressed-T" is added (whatever their number, with --tag).
func (e oracleEngine) compress(base, tag string) error {
	path := assetsFile(base)
	recs := e.read(path)
	var titles []string
	count := 0
	for i, r := range recs {
		if v, _ := r.get("compressed"); !truthy(v) && slices.Contains(r.tags(), tag) {
			if count < 5 {
				titles = append(titles, r.str("type")+": "+r.str("title"))
			}
			count++
			recs[i] = r.set("compressed", true)
		}
	}
	sum := obj{}.set("type", "pattern").set("slug", "compressed-"+tag).set("title", fmt.Sprintf("[압축] %s (%d건)", tag, count)).
		set("tags", []string{tag}).set("date", time.Now().Format(time.DateOnly)).set("scope", "generic").
		set("body", fmt.Sprintf("[%s × %d건 압축] %s", tag, count, strings.Join(titles, " | "))).
		set("context", "compress-assets.sh").set("session", "compress").set("compressed_summary", true)
	return e.rewrite(path, append(recs, sum))
}
