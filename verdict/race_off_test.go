//go:build !race

package verdict

const raceOn = false
