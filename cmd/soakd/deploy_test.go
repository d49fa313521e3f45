package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/soakd/soakd/engine"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"

	"github.com/soakd/soakd/internal/testutil"
)

// TestK8sShardManifest checks the Indexed Job's shard wiring (no API
// server here, so kubectl cannot validate it).
func TestK8sShardManifest(t *testing.T) {
	data, err := os.ReadFile("../../deploy/k8s/soakd-shards.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	kinds := map[string]map[string]any{}
	for {
		var d map[string]any
		if err := dec.Decode(&d); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		kinds[d["kind"].(string)] = d
	}
	for _, k := range []string{"ConfigMap", "Job", "Service", "PodMonitor"} {
		if kinds[k] == nil {
			t.Fatalf("no %s", k)
		}
	}
	spec := kinds["Job"]["spec"].(map[string]any)
	if spec["completionMode"] != "Indexed" || spec["parallelism"] != spec["completions"] {
		t.Fatalf("job spec %v", spec)
	}
	n := spec["completions"].(int)
	c := spec["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	env := map[string]string{"JOB_COMPLETION_INDEX": strconv.Itoa(n - 1)}
	var runIDFrom string
	for _, e := range c["env"].([]any) {
		m := e.(map[string]any)
		if v, ok := m["value"].(string); ok {
			env[m["name"].(string)] = v
			continue
		}
		if m["name"] == "SOAKD_RUN_ID" {
			runIDFrom, _ = m["valueFrom"].(map[string]any)["fieldRef"].(map[string]any)["fieldPath"].(string)
		}
	}
	// Every shard of one Job gets the same run id, and each Job a new one.
	if runIDFrom != "metadata.labels['batch.kubernetes.io/controller-uid']" {
		t.Fatalf("SOAKD_RUN_ID comes from %q, want the Job's controller-uid label", runIDFrom)
	}
	sh, err := resolveShard("", true, func(k string) string { return env[k] })
	if err != nil || sh != (rundir.Shard{Index: n - 1, Count: n}) {
		t.Fatalf("last pod's shard %v %v", sh, err)
	}
	args := strings.Join(toStrings(c["args"].([]any)), " ")
	if !strings.Contains(args, "/scenario/scenario.yaml --shard-from-env") {
		t.Fatalf("args %s", args)
	}
	if svc := kinds["Service"]["spec"].(map[string]any); svc["clusterIP"] != "None" {
		t.Fatalf("service is not headless: %v", svc)
	}
	sc, err := scenarios.Parse("scenario.yaml", []byte(kinds["ConfigMap"]["data"].(map[string]any)["scenario.yaml"].(string)))
	if err != nil {
		t.Fatal(err)
	}
	if err := engine.CheckShard(sc, sh); err != nil || sc.Phases[1].Rate != 500000 {
		t.Fatalf("scenario %v rate %v", err, sc.Phases[1].Rate)
	}
}

func toStrings(v []any) []string {
	out := make([]string, len(v))
	for i, x := range v {
		out[i] = x.(string)
	}
	return out
}

func TestSystemdShardTemplate(t *testing.T) {
	sa := testutil.NeedTool(t, "systemd-analyze")
	data, err := os.ReadFile("../../deploy/systemd/soakd@.service")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "Environment=SOAKD_SHARD=%i/16") {
		t.Fatal("template does not set SOAKD_SHARD from the instance name")
	}
	unit := filepath.Join(t.TempDir(), "soakd@3.service")
	if err := os.WriteFile(unit, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(sa, "verify", unit).CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}
