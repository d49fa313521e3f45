package runpath

import (
	"fmt"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// barrierRunID is the run id the engine gets: o.RunID where the shards
// can hold phase barriers, else "" with the warning why they cannot.
// Phase barriers need one store all shards share: not the embedded
// store or a managed server, which every process starts for itself,
// and one that holds barriers (targets.Barrier).
func barrierRunID(o Options, tg targets.Target) (string, string) {
	if o.Shard.Count <= 1 {
		return o.RunID, ""
	}
	sc := o.Scenario
	_, canWait := tg.(targets.Barrier)
	switch {
	case o.RunID == "":
		return "", fmt.Sprintf("shard %s has no run id (--run-id, $SOAKD_RUN_ID or --start-at): phases are not synchronised across shards", o.Shard)
	case sc.Target.Kind == scenarios.KindEmbedded || sc.Target.Managed != nil:
		return "", fmt.Sprintf("every shard runs its own %s store: phases are not synchronised across shards", sc.Target.Kind)
	case !canWait:
		return "", fmt.Sprintf("%s targets hold no phase barrier: phases are not synchronised across shards", sc.Target.Kind)
	}
	return o.RunID, ""
}
