package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/harnish/harnish/task/model"
)

// PlanDigest is a hash of the plan's content: a run records it when it
// starts, to notice a plan that changed under it.
func PlanDigest(p *model.Plan) string {
	data, err := json.Marshal(p)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:12])
}
