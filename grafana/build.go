// Package grafana builds soakd's Grafana dashboards as code (with
// github.com/grafana/grafana-foundation-sdk/go) and writes them as the
// JSON files in grafana/dashboards/ that provisioning loads. Run
// `go generate ./grafana` after changing a dashboard; a test fails when
// the committed JSON differs from what the code builds, and cmd/soakd's
// end-to-end test evaluates every query in it against a real Prometheus.
package grafana

//go:generate go run ./gen -out dashboards

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
)

// Dashboard is one generated dashboard: its file name in
// grafana/dashboards/ and its builder.
type Dashboard struct {
	File  string
	Build func() *dashboard.DashboardBuilder
}

// Dashboards lists the shipped dashboards. UIDs and titles are part of
// the contract with provisioning and links: keep them.
func Dashboards() []Dashboard {
	return []Dashboard{
		{"soakd-overview.json", overview},
		{"soakd-server.json", server},
		{"soakd-growth.json", growth},
	}
}

// Render builds d and returns its JSON as provisioned: the SDK's
// dashboard plus the __inputs/__requires header a UI import needs to
// prompt for the Prometheus datasource.
func Render(d Dashboard) ([]byte, error) {
	built, err := d.Build().Build()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.File, err)
	}
	raw, err := json.Marshal(built)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.File, err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", d.File, err)
	}
	numberPanels(m)
	m["__inputs"] = []map[string]string{{
		"name": dsVarName, "label": "Prometheus", "description": "Prometheus scraping soakd (native histograms enabled)",
		"type": "datasource", "pluginId": "prometheus", "pluginName": "Prometheus",
	}}
	m["__requires"] = []map[string]string{
		{"type": "grafana", "id": "grafana", "name": "Grafana", "version": "10.0.0"},
		{"type": "datasource", "id": "prometheus", "name": "Prometheus", "version": "1.0.0"},
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return nil, fmt.Errorf("%s: %w", d.File, err)
	}
	return b.Bytes(), nil
}

// numberPanels gives every panel, rows and the panels of collapsed rows
// included, an id from 1 in layout order (Grafana needs them unique for
// links and the panel editor; the SDK leaves them 0).
func numberPanels(m map[string]any) {
	id := 0
	var walk func(ps []any)
	walk = func(ps []any) {
		for _, p := range ps {
			if pm, ok := p.(map[string]any); ok {
				id++
				pm["id"] = id
				if sub, ok := pm["panels"].([]any); ok {
					walk(sub)
				}
			}
		}
	}
	if ps, ok := m["panels"].([]any); ok {
		walk(ps)
	}
}

// WriteAll renders every dashboard into dir.
func WriteAll(dir string) error {
	for _, d := range Dashboards() {
		b, err := Render(d)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, d.File), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
