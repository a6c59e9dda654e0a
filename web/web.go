package web

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
)

// Errors of New and of approvals.
var (
	// ErrConfig: the Config cannot serve a page.
	ErrConfig = errors.New("web: bad config")
	// ErrNoGate: no milestone gate waits at the phase an approval names.
	ErrNoGate = errors.New("web: no gate waits at that phase")
)

// Config configures [New]. Exactly one of Dir and Store is set.
type Config struct {
	// Dir is the run's state directory (a working tree's .harnish): the
	// page follows its journal as a loop in any process commits to it,
	// and shows its merge queue (loop.ReadQueue).
	Dir string
	// Store is a store the host's own loop commits through; the page
	// follows its transitions as they are committed.
	Store *Store
	// Plan is the run's plan. Nil: the plan kept in Dir (loop.LoadKeptPlan),
	// read again when the run changes it. Required with Store.
	Plan *task.Plan
	// Approve, when set, lets a person approve from the page the milestone
	// gate the run waits at, giving Token; it is called with the phase
	// whose gate waits and should approve it as "harnish resume --approve"
	// does (the CLI's serve calls exactly that). Nil: the page is read-only.
	Approve func(ctx context.Context, phase string) error
	// Token is what an approval must carry; required with Approve, and at
	// least 16 bytes.
	Token string
	// PollInterval is how often Dir's journal and merge queue are looked at
	// (a stat each, and a read of what was appended). Zero:
	// DefaultPollInterval.
	PollInterval time.Duration
	// Logger receives the follower's problems. Nil: silence.
	Logger *slog.Logger
}

// Handler is the status page of one run, an [http.Handler] a host mounts
// (under a path ending in "/", with http.StripPrefix: the page's links are
// relative). It serves:
//
//   - GET /: the page, rendered on the server: the plan's phases as graphs
//     of their tasks with their states, each task's failed attempts
//     (fingerprints, findings, guardrail decisions, the debugger's answer),
//     the spend over time, what runs now and the merge queue, and the gate
//     that waits with its checklist. It needs no script; its own inline
//     script follows GET /events.
//   - GET /events: server-sent events, one per batch of committed
//     transitions, carrying the parts of the page they changed.
//   - POST /approve: approves the waiting gate, when Config.Approve is set.
//
// Everything that comes from the plan, the agent or a check is escaped.
// A Handler is safe for concurrent use. Close stops following the run.
type Handler struct {
	cfg    Config
	hub    *hub
	log    *slog.Logger
	mux    *http.ServeMux
	ctx    context.Context // ends at Close
	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
}

// New returns the page of the run that cfg names and starts following it.
func New(cfg Config) (*Handler, error) {
	switch {
	case (cfg.Dir == "") == (cfg.Store == nil):
		return nil, fmt.Errorf("%w: set exactly one of Dir and Store", ErrConfig)
	case cfg.Store != nil && cfg.Plan == nil:
		return nil, fmt.Errorf("%w: a page over a Store needs the Plan", ErrConfig)
	case cfg.Approve != nil && len(cfg.Token) < 16:
		return nil, fmt.Errorf("%w: approving from the page needs a Token of at least 16 bytes", ErrConfig)
	}
	h := &Handler{cfg: cfg, hub: newHub(cfg.Approve != nil), log: cfg.Logger, done: make(chan struct{})}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	h.mux = http.NewServeMux()
	h.mux.HandleFunc("GET /{$}", h.servePage)
	h.mux.HandleFunc("GET /events", h.serveEvents)
	h.mux.HandleFunc("POST /approve", h.serveApprove)
	ctx, cancel := context.WithCancel(context.Background())
	h.ctx, h.cancel = ctx, cancel
	if cfg.Store != nil {
		cfg.Store.subscribe(h)
		close(h.done)
		return h, nil
	}
	f := &dirFollower{h: h, j: &journal{dir: cfg.Dir}}
	if err := f.poll(); err != nil {
		cancel()
		f.j.close()
		return nil, err
	}
	go f.run(ctx)
	return h, nil
}

// Close stops following the run; pages that follow live end their stream.
// It is safe to call twice.
func (h *Handler) Close() error {
	h.once.Do(func() {
		h.cancel()
		<-h.done
		if h.cfg.Store != nil {
			h.cfg.Store.unsubscribe(h)
		}
	})
	return nil
}

// ServeHTTP serves the page, its events and approvals.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cache-Control", "no-store")
	h.mux.ServeHTTP(w, r)
}

func (h *Handler) servePage(w http.ResponseWriter, r *http.Request) {
	nonce := newNonce()
	var b bytes.Buffer
	h.hub.mu.RLock()
	v := h.hub.page()
	v.Nonce = nonce
	err := tmpl.ExecuteTemplate(&b, "page", v)
	h.hub.mu.RUnlock()
	if err != nil {
		panic(err) // the template and its data are ours: a bug
	}
	// The page runs its own inline script and style, nothing else: were
	// escaping ever to fail, an injected script would still not run.
	w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'nonce-"+nonce+"'; style-src 'nonce-"+nonce+
		"'; connect-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(b.Bytes())
}

func newNonce() string {
	var b [16]byte
	rand.Read(b[:])
	return base64.RawStdEncoding.EncodeToString(b[:])
}

// heartbeat is how often an idle event stream sends a comment, so proxies
// and browsers keep it open.
const heartbeat = 15 * time.Second

func (h *Handler) serveEvents(w http.ResponseWriter, r *http.Request) {
	cursor := r.Header.Get("Last-Event-ID")
	if cursor == "" {
		cursor = r.URL.Query().Get("since")
	}
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	w.WriteHeader(http.StatusOK)
	if err := rc.Flush(); err != nil { // the client learns the stream is open
		return
	}
	beat := time.NewTicker(heartbeat)
	defer beat.Stop()
	next := int64(-1)
	var buf bytes.Buffer
	for {
		out, n, wait, reload := h.hub.since(cursor, next)
		buf.Reset()
		if reload {
			buf.WriteString("event: reload\ndata: {}\n\n")
		}
		for _, p := range out {
			// The id is the cursor the patch leads to, for the browser to
			// send back (Last-Event-ID) when it reconnects.
			fmt.Fprintf(&buf, "id: %s\nevent: patch\ndata: %s\n\n", p.Cursor, p.Data)
		}
		if buf.Len() > 0 {
			if _, err := w.Write(buf.Bytes()); err != nil {
				return
			}
			if err := rc.Flush(); err != nil {
				return
			}
		}
		if reload {
			return
		}
		next = n
		select {
		case <-wait:
		case <-beat.C:
			if _, err := w.Write([]byte(": keep-alive\n\n")); err != nil || rc.Flush() != nil {
				return
			}
		case <-r.Context().Done():
			return
		case <-h.ctx.Done():
			return
		}
	}
}

// maxForm bounds an approval's body.
const maxForm = 16 << 10

func (h *Handler) serveApprove(w http.ResponseWriter, r *http.Request) {
	if h.cfg.Approve == nil {
		http.Error(w, "this page is read-only: its host did not enable approvals", http.StatusForbidden)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form: "+err.Error(), http.StatusBadRequest)
		return
	}
	token, phase := r.PostForm.Get("token"), r.PostForm.Get("phase")
	if subtle.ConstantTimeCompare([]byte(token), []byte(h.cfg.Token)) != 1 {
		http.Error(w, "wrong token", http.StatusForbidden)
		return
	}
	h.hub.mu.RLock()
	waiting := ""
	if st := h.hub.st; st != nil && (st.Outcome == "" || st.Outcome == policy.AwaitingApproval) {
		waiting = st.AwaitingGate
	}
	h.hub.mu.RUnlock()
	if phase == "" || phase != waiting {
		http.Error(w, fmt.Sprintf("%v: %q", ErrNoGate, phase), http.StatusConflict)
		return
	}
	if err := h.cfg.Approve(r.Context(), phase); err != nil {
		h.log.Warn("web: approval failed", "phase", phase, "err", err)
		http.Error(w, "the approval failed: "+err.Error(), http.StatusConflict)
		return
	}
	http.Redirect(w, r, "./", http.StatusSeeOther)
}

// dirFollower feeds the hub from a state directory.
type dirFollower struct {
	h         *Handler
	j         *journal
	queueStat os.FileInfo
}

func (f *dirFollower) run(ctx context.Context) {
	defer close(f.h.done)
	defer func() { f.j.close() }() // the journal in use at the end, not the first
	every := f.h.cfg.PollInterval
	if every <= 0 {
		every = DefaultPollInterval
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if err := f.poll(); err != nil {
			if f.h.hub.setErr(err.Error()) { // once per problem, not per tick
				f.h.log.Warn("web: following the run", "dir", f.h.cfg.Dir, "err", err)
			}
			f.j.restart() // start over at the next tick
			continue
		}
		f.h.hub.setErr("")
	}
}

// poll shows what the journal gained, and the merge queue when it changed.
func (f *dirFollower) poll() error {
	c, err := f.j.poll()
	if err != nil {
		return err
	}
	switch {
	case c.State != nil:
		st := c.State
		for _, t := range c.Transitions {
			if err := st.Apply(t); err != nil {
				return fmt.Errorf("web: %s: transition %d does not apply: %v", f.h.cfg.Dir, st.Seq+1, err)
			}
		}
		f.h.hub.reset(f.plan(), st, readSpend(f.h.cfg.Dir))
	case len(c.Transitions) > 0:
		if !f.h.hub.apply(c.Transitions) {
			f.j.restart() // out of step: read it all again
			return f.poll()
		}
		if slices.ContainsFunc(c.Transitions, func(t policy.Transition) bool { return t.Kind == policy.TransPlanChanged }) {
			f.h.hub.replan(f.plan())
		}
	}
	fi, err := os.Stat(filepath.Join(f.h.cfg.Dir, loop.QueueFile))
	if err != nil {
		fi = nil
	}
	if !sameStat(fi, f.queueStat) {
		f.queueStat = fi
		q, err := loop.ReadQueue(f.h.cfg.Dir)
		if err != nil {
			f.h.log.Warn("web: the merge queue", "err", err)
		}
		f.h.hub.setQueue(q)
	}
	return nil
}

// plan is the run's plan: the host's, or the one the run keeps.
func (f *dirFollower) plan() *task.Plan {
	if f.h.cfg.Plan != nil {
		return f.h.cfg.Plan
	}
	plan, err := loop.LoadKeptPlan(f.h.cfg.Dir)
	if err != nil {
		f.h.log.Warn("web: the run's plan", "err", err) // the page shows the run without it
		return nil
	}
	return plan
}

func sameStat(a, b os.FileInfo) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Size() == b.Size() && a.ModTime().Equal(b.ModTime()) && os.SameFile(a, b)
}
