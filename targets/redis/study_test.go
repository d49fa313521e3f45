package redis

import (
	"os"
	"testing"

	"github.com/soakd/soakd/internal/studytest"
)

// TestStudySearchMix runs the shipped study-search-mix-redis.yaml
// briefly (studytest.Short) against redis-server with RediSearch 1.2:
// every phase runs without errors (every search found its documents
// through FT.SEARCH), each point of the update sweep runs its own mix,
// and the study's report (sweep table and chart, p0..p99.99) renders in
// Chromium.
func TestStudySearchMix(t *testing.T) {
	if _, err := os.Stat(redisearchSO); err != nil {
		t.Fatalf("%s is missing: install redis-redisearch (CI does)", redisearchSO)
	}
	s := startRedis(t, "--loadmodule", redisearchSO, "TIMEOUT", "0")
	sum, dir := studytest.Run(t, "../../scenarios/study-search-mix-redis.yaml", "redis://"+s.Addr())
	studytest.CheckSweep(t, sum)
	studytest.CheckReport(t, sum, dir)
}
