package mongo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/bson"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// A replay phase's op (capture's mongo dialect) arrives as a custom op
// the scenario's ops: did not declare, its one part the command document
// in extended JSON. It runs like a custom op's command on the scenario's
// database, without what tied it to the captured session (lsid,
// txnNumber, $db, $clusterTime and the other $ fields at its top level).
// A reply with ok 0 or write errors is an error; a read that finds
// nothing is a success (replayed traffic has no miss rule).

// sessionFields are top-level fields a captured command carries for
// its session or transaction; the replay drops them.
var sessionFields = []string{"lsid", "txnNumber", "autocommit", "startTransaction"}

var errReplayPart = errors.New("replay op: want one part, the command document")

// doReplay runs replayed op r.
func (t *Target) doReplay(ctx context.Context, r *targets.Request) error {
	if len(r.Parts) != 1 {
		return errReplayPart
	}
	var cmd bson.D
	if err := bson.UnmarshalExtJSON(r.Parts[0], false, &cmd); err != nil {
		return fmt.Errorf("replay op %s: not extended JSON: %w", r.Op, err)
	}
	kept := cmd[:0]
	for _, e := range cmd {
		if strings.HasPrefix(e.Key, "$") || slices.Contains(sessionFields, e.Key) {
			continue
		}
		kept = append(kept, e)
	}
	return t.runCommand(ctx, kept, scenarios.MissNever)
}
