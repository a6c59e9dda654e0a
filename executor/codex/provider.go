package codex

// Provider is a model provider Codex talks to instead of its built-in one:
// an OpenAI-compatible endpoint (a gateway, a local model server, a scripted
// test server).
type Provider struct {
	// Name is the provider's key in Codex's configuration. Empty means
	// "harnish".
	Name string
	// BaseURL is where requests go; Codex POSTs to BaseURL + "/responses".
	BaseURL string
	// WireAPI is the API spoken: "responses" (the default when empty).
	WireAPI string
	// EnvKey names the environment variable holding the API key, if the
	// endpoint needs one.
	EnvKey string
	// Options are further settings of the provider, each a TOML value
	// (e.g. "request_max_retries": "0").
	Options map[string]string
}
