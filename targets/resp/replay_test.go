package resp

import "testing"

// A replay skips the blocking and connection-state commands.
func TestSkips(t *testing.T) {
	for _, c := range []string{"MONITOR", "SUBSCRIBE", "PSUBSCRIBE", "CLIENT", "BLPOP", "WAIT"} {
		if !Skips(c) {
			t.Errorf("%s is not skipped", c)
		}
	}
	if Skips("GET") {
		t.Error("GET skipped")
	}
}
