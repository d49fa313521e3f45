package elastic

import (
	"context"
	"errors"
	"strings"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// A replay phase's op (capture's elastic dialect) arrives as a custom op
// the scenario's ops: did not declare, its parts the method, the path
// (with its query string) and the body (empty for none). It is sent like
// a custom op's request: a body to _bulk or _msearch as NDJSON, a status
// other than 2xx an error, as is a 2xx reply reporting failure inside it
// (bulk errors, failed shards, a timed-out search). A 404 and found:
// false are misses (a GET of a document the replay never wrote), as
// under a custom op's miss_when: nil.

var errReplayParts = errors.New("replay op: want three parts, the method, the path and the body")

// doReplay sends replayed op r.
func (t *Target) doReplay(ctx context.Context, r *targets.Request) error {
	if len(r.Parts) != 3 {
		return errReplayParts
	}
	path := string(r.Parts[1])
	co := customOp{method: string(r.Parts[0]), miss: scenarios.MissNil,
		bulk: strings.Contains(path, "_bulk") || strings.Contains(path, "_msearch")}
	return t.send(ctx, &co, r.Parts[1], r.Parts[2])
}
