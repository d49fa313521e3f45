package main

import (
	"context"
	"strings"
	"testing"
)

// refusal is a command line that must be refused (exit 2) with want in
// its stderr.
type refusal struct {
	args []string
	want string
}

// wantRefused runs each refusal on a new App.
func wantRefused(t *testing.T, cases []refusal) {
	t.Helper()
	for _, c := range cases {
		a, _, errb := newApp()
		if code := a.Main(context.Background(), c.args); code != exitRefused || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errb, c.want)
		}
	}
}
