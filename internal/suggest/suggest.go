// Package suggest finds the known name a mistyped one was meant to be:
// the "did you mean" of soakd's messages (scenario keys and kinds,
// command-line flags and commands).
package suggest

import (
	"fmt"
	"strings"
)

// maxSuggestDistance is how far (in single-letter edits) a mistyped
// name may be from a known one for a "did you mean" hint; a name
// shorter than 6 letters may be one edit away only ("soak" is two from
// "load" and means something else).
const maxSuggestDistance = 2

// Closest returns the name in names nearest to s in edit distance (case
// ignored) when it is near enough (maxSuggestDistance) and unique at
// that distance; "" otherwise, or when s is itself one of the names.
func Closest(s string, names []string) string {
	limit := min(maxSuggestDistance, max(1, len(s)/3))
	best, bestD, tie := "", limit+1, false
	ls := strings.ToLower(s)
	for _, n := range names {
		d := Distance(ls, strings.ToLower(n))
		if d == 0 && n == s {
			return ""
		}
		switch {
		case d < bestD:
			best, bestD, tie = n, d, false
		case d == bestD && n != best:
			tie = true
		}
	}
	if best == "" || tie {
		return ""
	}
	return best
}

// DidYouMean is Closest(s, names) as a message suffix: ` (did you mean
// "x"?)`, or "".
func DidYouMean(s string, names []string) string {
	if c := Closest(s, names); c != "" {
		return fmt.Sprintf(" (did you mean %q?)", c)
	}
	return ""
}

// Distance is the number of single-letter edits (insert, delete,
// replace, or swap two neighbours: "setps" is one from "steps") that
// turn a into b, counted in bytes (the names suggested are ASCII).
func Distance(a, b string) int {
	// d[i][j] is the distance between a[:i] and b[:j]; three rows kept.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j-1]+cost, prev[j]+1, cur[j-1]+1)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
