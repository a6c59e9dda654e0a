package schema

// Usage is what an agent spent. Any field may be zero when the agent does
// not report it. Its JSON form is the one a command executor writes to its
// result file.
type Usage struct {
	InputTokens  int64 `json:"input_tokens,omitempty"`
	OutputTokens int64 `json:"output_tokens,omitempty"`
	// CostUSD is the cost in US dollars.
	CostUSD float64 `json:"cost_usd,omitempty"`
}

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		InputTokens:  u.InputTokens + v.InputTokens,
		OutputTokens: u.OutputTokens + v.OutputTokens,
		CostUSD:      u.CostUSD + v.CostUSD,
	}
}

// Tokens returns the input and output tokens together, as the run's token
// budget counts them.
func (u Usage) Tokens() int64 {
	return u.InputTokens + u.OutputTokens
}
