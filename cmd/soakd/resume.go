package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/soakd/soakd/internal/runpath"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// runRecipe is what `soakd run` keeps in its run's checkpoint to run the
// same scenario again on --resume: the scenario file and the flags that
// change it, the shard and the run id as resolved. A target URL with a
// password is kept without it (TargetSecret): --resume then needs
// --target again.
type runRecipe struct {
	File           string        `json:"file"`
	Target         string        `json:"target,omitempty"`
	TargetSecret   bool          `json:"target_secret,omitempty"`
	Rate           *float64      `json:"rate,omitempty"`
	Duration       string        `json:"duration,omitempty"`
	Warmup         string        `json:"warmup,omitempty"`
	Tick           string        `json:"tick,omitempty"`
	Records        string        `json:"records,omitempty"`
	Concurrency    int           `json:"concurrency,omitempty"`
	Seed           string        `json:"seed,omitempty"`
	Repeat         int           `json:"repeat,omitempty"`
	Shard          string        `json:"shard,omitempty"`
	RunID          string        `json:"run_id,omitempty"`
	BarrierTimeout time.Duration `json:"barrier_timeout,omitempty"`
}

// recipeOf is the recipe of a run of the scenario at path with f, as
// shard with run id runID.
func recipeOf(path string, f runFlags, shard rundir.Shard, runID string) json.RawMessage {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	r := runRecipe{File: abs, Target: f.target, Duration: f.duration, Warmup: f.warmup, Tick: f.tick, Records: f.records,
		Concurrency: f.concurrency, Seed: f.seed, Repeat: f.repeat, RunID: runID, BarrierTimeout: f.barrierTimeout}
	if shard.Count > 1 {
		r.Shard = shard.String()
	}
	if red := scenarios.RedactURL(r.Target); red != r.Target {
		r.Target, r.TargetSecret = red, true
	}
	if f.rateSet {
		rate := f.rate
		r.Rate = &rate
	}
	js, _ := json.Marshal(r)
	return js
}

// resumeKeeps are the run flags --resume takes: how it runs, not what.
var resumeKeeps = map[string]bool{"resume": true, "force": true, "quiet": true, "listen": true, "otlp-endpoint": true,
	"color": true, "barrier-timeout": true, "target": true, "checkpoint-every": true}

// resume continues the killed run in f.resume (soakd run --resume DIR):
// its scenario rebuilt from the checkpoint's recipe, refused (exit 2, one
// line naming the directory and why) when it cannot be resumed.
func (a *App) resume(ctx context.Context, fs *flag.FlagSet, pos []string, f runFlags) int {
	dir := f.resume
	if len(pos) != 0 {
		fmt.Fprintf(a.Stderr, "soakd run: --resume %s continues that run's scenario: give no scenario file\n", dir)
		return exitRefused
	}
	var other []string
	fs.Visit(func(fl *flag.Flag) {
		if !resumeKeeps[fl.Name] && !strings.HasPrefix(fl.Name, "heap") && !strings.HasPrefix(fl.Name, "mem") && !strings.HasPrefix(fl.Name, "sched") {
			other = append(other, "--"+fl.Name)
		}
	})
	if len(other) > 0 {
		fmt.Fprintf(a.Stderr, "soakd run: resume %s: %s cannot change it: the killed run goes on as it was\n", dir, strings.Join(other, ", "))
		return exitRefused
	}
	ck, err := runpath.Resumable(dir)
	if err != nil {
		fmt.Fprintf(a.Stderr, "soakd run: %v\n", err)
		return exitRefused
	}
	var rec runRecipe
	if len(ck.Recipe) == 0 || json.Unmarshal(ck.Recipe, &rec) != nil || rec.File == "" {
		fmt.Fprintf(a.Stderr, "soakd run: resume %s: its checkpoint does not say how soakd run started it (a daemon's run is resumed by the daemon)\n", dir)
		return exitRefused
	}
	switch {
	case len(f.targets) > 1:
		fmt.Fprintf(a.Stderr, "soakd run: resume %s: give one --target\n", dir)
		return exitRefused
	case len(f.targets) == 1:
		if scenarios.RedactURL(f.targets[0]) != scenarios.RedactURL(rec.Target) && !rec.TargetSecret {
			fmt.Fprintf(a.Stderr, "soakd run: resume %s: --target is only for a target whose password the run did not keep\n", dir)
			return exitRefused
		}
		rec.Target = f.targets[0]
	case rec.TargetSecret:
		fmt.Fprintf(a.Stderr, "soakd run: resume %s: the target URL's password is not kept in the run directory: give --target %s again with it\n", dir, rec.Target)
		return exitRefused
	}
	f.target, f.duration, f.warmup, f.tick, f.records = rec.Target, rec.Duration, rec.Warmup, rec.Tick, rec.Records
	f.concurrency, f.seed, f.repeat, f.shard, f.runID = rec.Concurrency, rec.Seed, rec.Repeat, rec.Shard, rec.RunID
	if rec.BarrierTimeout > 0 && !flagGiven(fs, "barrier-timeout") {
		f.barrierTimeout = rec.BarrierTimeout
	}
	f.rateSet = rec.Rate != nil
	if f.rateSet {
		f.rate = *rec.Rate
	}
	code, sum, out := a.runScenario(ctx, rec.File, f, "")
	a.printControl(f, out, sum)
	return code
}

func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(fl *flag.Flag) { given = given || fl.Name == name })
	return given
}
