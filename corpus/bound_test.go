package corpus

import (
	"testing"

	"github.com/soakd/soakd/scenarios"
)

// The memory bound (scenarios) counts a corpus's index, keys and terms
// at this package's figure.
func TestMaxIndexBytesIsTheBounds(t *testing.T) {
	if MaxIndexBytes != scenarios.CorpusIndexBytes {
		t.Fatalf("corpus.MaxIndexBytes %d, scenarios.CorpusIndexBytes %d", MaxIndexBytes, scenarios.CorpusIndexBytes)
	}
}
