package elastic

import (
	"testing"

	"github.com/soakd/soakd/internal/studytest"
)

// TestStudySearchMix runs the shipped study-search-mix-elastic.yaml
// briefly (studytest.Short) against the Elasticsearch 8 stand-in that
// indexes documents and answers multi_match searches: every phase runs
// without errors, each point of the update sweep runs its own mix, and
// the study's report (sweep table and chart, p0..p99.99) renders in
// Chromium.
func TestStudySearchMix(t *testing.T) {
	x := newIndexingES()
	x.index = "soakd-search"
	f := newFake(t, x.handle)
	sum, dir := studytest.Run(t, "../../scenarios/study-search-mix-elastic.yaml", f.URL)
	studytest.CheckSweep(t, sum)
	studytest.CheckReport(t, sum, dir)
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.searches) == 0 {
		t.Error("the stand-in answered no search")
	}
	for i, s := range x.searches {
		if s.total < 1 {
			t.Fatalf("search %d (%q) found nothing", i, s.query)
		}
	}
}
