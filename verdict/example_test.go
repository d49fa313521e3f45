package verdict_test

import (
	"fmt"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/verdict"
)

// A scenario's SLO is parsed once into Limits ("*" merged into every
// op), then each phase is judged on its histograms at the exact
// percentiles asked for.
func ExampleLimits_Judge() {
	ms := func(n int) scenarios.Duration { return scenarios.Duration(time.Duration(n) * time.Millisecond) }
	maxErrors := 0.01
	limits := verdict.MustNew(scenarios.SLO{
		Latency: map[string]map[string]scenarios.Duration{
			"*":   {"p99": ms(5)},
			"get": {"p99.9": ms(20)}, // get: p99 5ms from "*", and p99.9 20ms
		},
		MinAchievedRatio: 0.95,
		MaxErrorRatio:    &maxErrors,
	}, nil)

	// What the phase measured: 1,000 GETs, 990 at 1 ms and 10 at 30 ms;
	// 980 ops/s of the 1,000 asked for, 2 errors.
	lat := metrics.NewHist()
	lat.RecordValues(int64(time.Millisecond), 990)
	lat.RecordValues(int64(30*time.Millisecond), 10)
	v := limits.Judge(verdict.Phase{
		Name: "steady", TargetRate: 1000, AchievedRate: 980, GoodputRate: 978,
		Completed: 1000, Errors: 2, Ops: []string{"get"},
		Latency: func(string) *hdr.Histogram { return lat },
	})
	for _, c := range v.Checks {
		fmt.Printf("%-5v %s\n", c.Passed, c)
	}
	fmt.Println("phase passed:", v.Passed)
	// Output:
	// true  get latency p99 1.00ms <= 5.00ms
	// false get latency p99.9 30.02ms > 20.00ms
	// true  achieved_ratio 0.978 >= 0.95
	// true  error_ratio 0.002 <= 0.01
	// phase passed: false
}
