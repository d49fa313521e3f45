//go:build race

package verdict

// raceOn: the race detector is on (it makes the 1,000-pair simulation
// take ten times as long; it runs 200 pairs then).
const raceOn = true
