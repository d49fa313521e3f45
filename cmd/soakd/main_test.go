package main

import "testing"

func TestProcsGivesThePacerAP(t *testing.T) {
	for _, c := range []struct {
		n       int
		fromEnv bool
		want    int
	}{
		{1, false, 2}, // one CPU (taskset -c 1, a 1-CPU limit): pacer + workers
		{2, false, 3},
		{16, false, 17},
		{1, true, 2}, // GOMAXPROCS=1 from the environment still gets the floor
		{4, true, 4},
	} {
		if got := procs(c.n, c.fromEnv); got != c.want {
			t.Errorf("procs(%d, %v) = %d, want %d", c.n, c.fromEnv, got, c.want)
		}
	}
}
