package runpath

import (
	"errors"
	"strconv"
	"strings"
)

// ParseRate parses a rate override as text (--rate, an API request's
// "rate"): ops/s as a plain number, 0 for closed loop. Its error is the
// hint a user needs ("5k" is not a number); the range is Apply's check.
func ParseRate(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, errors.New("use a number like 5000 (ops/s; 0 = closed loop)")
	}
	return v, nil
}

// DurationHint says how to fix a duration that did not parse: a bare
// number lacks only its unit ("30": add a unit: 30s).
func DurationHint(s string) string {
	s = strings.TrimSpace(s)
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return "add a unit: " + s + "s"
	}
	return "use a duration like 30s, 5m or 12h"
}
