package scenarios

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ElasticTemplate is a custom op's elastic form: an HTTP request with
// placeholders in its path and JSON body, e.g.
//
//	{method: POST, path: "/products/_search", body: '{"query": {"match": {"name": "{text:1}"}}}'}
type ElasticTemplate struct {
	Method string `yaml:"method"` // GET, POST, PUT, DELETE or HEAD (default GET, POST with a body)
	Path   string `yaml:"path"`
	Body   string `yaml:"body"` // JSON; NDJSON for _bulk and _msearch
}

// HTTPMethod is the request's method with its default.
func (t *ElasticTemplate) HTTPMethod() string {
	if t.Method != "" {
		return strings.ToUpper(t.Method)
	}
	if t.Body != "" {
		return "POST"
	}
	return "GET"
}

// elasticDestructive are path parts whose requests destroy data or
// reconfigure a cluster, refused without allow_destructive (as is a
// DELETE of anything but one document: deleteIndex).
var elasticDestructive = []string{"_delete_by_query", "_close", "_cluster/settings", "_shutdown", "_snapshot", "_security", "_ilm", "_shrink", "_split", "_forcemerge"}

func (s *Scenario) validateElasticTemplate(name, pp string, c *CustomOp, isBinding func(string) bool, maxLen func([]Segment) int64) []FieldError {
	var errs []FieldError
	add := func(path, format string, args ...any) {
		errs = append(errs, FieldError{Path: path, Msg: fmt.Sprintf(format, args...)})
	}
	e := c.Elastic
	switch e.HTTPMethod() {
	case "GET", "POST", "PUT", "DELETE", "HEAD":
	default:
		add(pp+".method", "op %s: method %q: use GET, POST, PUT, DELETE or HEAD", name, e.Method)
	}
	if !strings.HasPrefix(e.Path, "/") {
		add(pp+".path", "op %s: the path must start with / (it goes after the target URL)", name)
	}
	pathSegs, err := ParseTemplate(e.Path, isBinding)
	if err != nil {
		add(pp+".path", "op %s: %v", name, err)
	} else {
		p := sampleRender(pathSegs)
		if err := CheckElasticPath(e.HTTPMethod(), p, s.AllowDestructive); err != nil {
			add(pp+".path", "op %s: %s %s: %s", name, e.HTTPMethod(), e.Path, strings.TrimPrefix(err.Error(), ErrPathRefused.Error()+": "))
		}
		if n := maxLen(pathSegs); n > int64(c.MaxBytes) {
			add(pp+".path", "op %s: the path can render %d bytes, more than max_bytes (%d)", name, n, int64(c.MaxBytes))
		}
	}
	if e.Body == "" {
		return errs
	}
	bodySegs, err := ParseTemplate(e.Body, isBinding)
	if err != nil {
		add(pp+".body", "op %s: %v", name, err)
		return errs
	}
	b := sampleRender(bodySegs)
	lines := []string{b}
	if strings.Contains(e.Path, "_bulk") || strings.Contains(e.Path, "_msearch") {
		lines = strings.Split(strings.TrimSpace(b), "\n")
	}
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			add(pp+".body", "op %s: the body is not valid JSON (with each placeholder as 0): %s", name, jsonError(l))
			break
		}
	}
	if n := maxLen(bodySegs); n > int64(c.MaxBytes) {
		add(pp+".body", "op %s: the body can render %d bytes, more than max_bytes (%d)", name, n, int64(c.MaxBytes))
	}
	return errs
}
