package mongo

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/mongo/description"
	"go.mongodb.org/mongo-driver/x/mongo/driver/topology"

	"github.com/soakd/soakd/targets"
)

// A server selection that timed out before any server answered (all of
// kind unknown, no dial error yet) is a connection failure; one that
// timed out with a server known (an election, say) stays a timeout.
func TestClassifySelectionTimeout(t *testing.T) {
	var tg Target
	never := topology.ServerSelectionError{Desc: description.Topology{Servers: []description.Server{{Kind: description.Unknown}}}, Wrapped: context.DeadlineExceeded}
	if c := tg.Classify(never); c != targets.ClassConnection {
		t.Errorf("no server ever answered: %q, want %q", c, targets.ClassConnection)
	}
	known := topology.ServerSelectionError{Desc: description.Topology{Servers: []description.Server{{Kind: description.RSSecondary}}}, Wrapped: context.DeadlineExceeded}
	if c := tg.Classify(known); c != targets.ClassTimeout {
		t.Errorf("a known server, no primary: %q, want %q", c, targets.ClassTimeout)
	}
}
