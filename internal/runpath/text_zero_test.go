package runpath

import (
	"strings"
	"testing"
)

// The API's overrides refuse what the scenario file refuses: 0 workers or
// rounds (0 meant "no override" before), and a target URL whose query
// carries a password (accepted before, failing later, kept in history).
func TestTextRefusesZeroCountsAndQueryPasswords(t *testing.T) {
	for _, tc := range []struct {
		text Text
		want string
	}{
		{Text{Concurrency: "0"}, "concurrency 0: give at least 1"},
		{Text{Repeat: "0"}, "repeat 0: give at least 1"},
		{Text{Concurrency: "-3"}, "concurrency -3: give at least 1"},
		{Text{Target: "mongodb://127.0.0.1:27017/?password=hunter2"}, "target: the URL's query carries password"},
		{Text{Target: "http://127.0.0.1:9200/?api_key=abc"}, "target: the URL's query carries api_key"},
	} {
		_, err := tc.text.Parse()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.text, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("the error echoes the password: %v", err)
		}
	}
	if o, err := (Text{Concurrency: "4", Repeat: "1", Target: "redis://127.0.0.1:6379/0?dial_timeout=3s"}).Parse(); err != nil || o.Concurrency != 4 || o.Repeat != 1 {
		t.Errorf("good overrides: %+v, %v", o, err)
	}
}
