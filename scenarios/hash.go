package scenarios

import (
	"crypto/sha256"
	"encoding/hex"

	"gopkg.in/yaml.v3"
)

// Hash names the workload: the first 16 hex digits of the SHA-256 of the
// scenario as YAML (overrides applied, keys in order) with its target
// left out, so the same workload against two stores hashes alike and a
// changed rate, mix, SLO or seed does not.
func (s *Scenario) Hash() string {
	c := *s
	c.Target = Target{}
	c.File = ""
	b, err := yaml.Marshal(&c)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}
