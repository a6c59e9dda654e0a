// Command harnish-msvc is the MSVC/CMake verifier as a harnish plugin: a
// host names it in its plugin manifest, and it verifies C and C++ projects
// built with CMake or MSBuild (see package msvc). Its one setting, "config",
// holds the JSON of .harnish/msvc.json; without it, each working tree's own
// file is read.
package main

import (
	"context"
	"sync"

	"github.com/harnish/harnish/plugins"
	"github.com/harnish/harnish/plugins/msvc"
	"github.com/harnish/harnish/verify"
)

// version is the plugin's semver.
const version = "0.1.0"

// server holds the verifier, which Configure replaces when the host's
// settings give a configuration.
type server struct {
	mu sync.RWMutex
	v  *msvc.Verifier
}

func (s *server) Verify(ctx context.Context, req *verify.Request) (*verify.Report, error) {
	s.mu.RLock()
	v := s.v
	s.mu.RUnlock()
	return v.Verify(ctx, req)
}

func (s *server) configure(_ context.Context, settings map[string]string) error {
	cfg, err := msvc.ConfigFromSettings(settings)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.v = &msvc.Verifier{Config: cfg}
	s.mu.Unlock()
	return nil
}

func main() {
	s := &server{v: &msvc.Verifier{}}
	plugins.Serve(plugins.Plugin{
		Name:      "harnish-msvc",
		Version:   version,
		Verifier:  s,
		Configure: s.configure,
	})
}
