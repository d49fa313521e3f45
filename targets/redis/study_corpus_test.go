package redis

import (
	"os"
	"testing"

	"github.com/soakd/soakd/internal/studytest"
)

// TestStudySearchMixCorpus runs the shipped corpus study briefly against
// redis-server with RediSearch: the corpus's documents load as hashes,
// every phase (searches drawn from its terms, updates writing its
// documents) runs without errors and each sweep point runs its own mix.
func TestStudySearchMixCorpus(t *testing.T) {
	if _, err := os.Stat(redisearchSO); err != nil {
		t.Fatalf("%s is missing: install redis-redisearch (CI does)", redisearchSO)
	}
	s := startRedis(t, "--loadmodule", redisearchSO)
	sum, _ := studytest.Run(t, "../../scenarios/study-search-mix-corpus-redis.yaml", "redis://"+s.Addr())
	studytest.CheckSweep(t, sum)
	rc := rawClient(t, s)
	if got := rc.HGet(ctxT(t), "doc:p00001", "id").Val(); got != "p00001" {
		t.Fatalf("doc:p00001 id = %q: the corpus was not loaded by its key field", got)
	}
}
