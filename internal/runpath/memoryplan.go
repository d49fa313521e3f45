package runpath

import (
	"fmt"

	"github.com/soakd/soakd/targets"
)

// memoryPlanWarnings says, before the first op, what of the target's
// memory plan cannot happen on this host: swap asked for on a host with
// none (past the cgroup's memory cap the server is OOM-killed instead of
// swapping, and a growth finds that, not a swap cliff).
func memoryPlanWarnings(tg targets.Target) []string {
	ml, ok := tg.(targets.MemoryLimiter)
	if !ok {
		return nil
	}
	m := ml.MemoryLimits()
	if m == nil || m.Cgroup == "" || m.CgroupSwapBytes <= 0 || m.HostSwapBytes == nil || *m.HostSwapBytes > 0 {
		return nil
	}
	return []string{fmt.Sprintf("target.managed.cgroup_swap allows the server %s of swap, but this host has no swap: "+
		"past cgroup_memory (%s) the server will be OOM-killed rather than swap, and a growth phase will find that, not a swap cliff "+
		"(turn swap on: soakd run --swap SIZE, or leave cgroup_swap out)",
		targets.FormatBytes(m.CgroupSwapBytes), targets.FormatBytes(m.CgroupMemoryBytes))}
}
