package elastic

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/soakd/soakd/scenarios"
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

// Check checks the elastic form: its method, a path the safety rule
// lets through (CheckPath) and a JSON (or NDJSON) body, each
// within max_bytes.
func (e *ElasticTemplate) Check(c scenarios.CustomCheck) []scenarios.FieldError {
	var errs []scenarios.FieldError
	add := func(path, format string, args ...any) { scenarios.Add(&errs, path, format, args...) }
	s, name, pp, isBinding, maxLen := c.Scenario, c.Name, c.Path, c.IsBinding, c.MaxLen
	switch e.HTTPMethod() {
	case "GET", "POST", "PUT", "DELETE", "HEAD":
	default:
		add(pp+".method", "op %s: method %q: use GET, POST, PUT, DELETE or HEAD", name, e.Method)
	}
	if !strings.HasPrefix(e.Path, "/") {
		add(pp+".path", "op %s: the path must start with / (it goes after the target URL)", name)
	}
	pathSegs, err := scenarios.ParseTemplate(e.Path, isBinding)
	if err != nil {
		add(pp+".path", "op %s: %v", name, err)
	} else {
		p := scenarios.SampleRender(pathSegs)
		if err := CheckPath(e.HTTPMethod(), p, s.AllowDestructive); err != nil {
			add(pp+".path", "op %s: %s %s: %s", name, e.HTTPMethod(), e.Path, strings.TrimPrefix(err.Error(), ErrPathRefused.Error()+": "))
		}
		if n := maxLen(pathSegs); n > int64(c.Op.MaxBytes) {
			add(pp+".path", "op %s: the path can render %d bytes, more than max_bytes (%d)", name, n, int64(c.Op.MaxBytes))
		}
	}
	if e.Body == "" {
		return errs
	}
	bodySegs, err := scenarios.ParseTemplate(e.Body, isBinding)
	if err != nil {
		add(pp+".body", "op %s: %v", name, err)
		return errs
	}
	b := scenarios.SampleRender(bodySegs)
	lines := []string{b}
	if strings.Contains(e.Path, "_bulk") || strings.Contains(e.Path, "_msearch") {
		lines = strings.Split(strings.TrimSpace(b), "\n")
	}
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			add(pp+".body", "op %s: the body is not valid JSON (with each placeholder as 0): %s", name, scenarios.JSONProblem(l))
			break
		}
	}
	if n := maxLen(bodySegs); n > int64(c.Op.MaxBytes) {
		add(pp+".body", "op %s: the body can render %d bytes, more than max_bytes (%d)", name, n, int64(c.Op.MaxBytes))
	}
	return errs
}

// ErrPathRefused wraps a rendered elastic path that the safety rules
// refuse.
var ErrPathRefused = errors.New("refused")

// CheckPath applies the elastic safety rules to a path as it
// will be sent (p, with its query): no segment may be "." or ".." once
// decoded (a value cannot climb out of its segment), and unless
// allowDestructive, a DELETE must name one document
// (/{index}/_doc/{id}) and no part of the normalised path may be one of
// the destructive endpoints. Validate applies it to each template
// rendered with stand-in values, a run to every rendered path before it
// is sent.
func CheckPath(method, p string, allowDestructive bool) error {
	norm, err := normElasticPath(p)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrPathRefused, err)
	}
	if allowDestructive {
		return nil
	}
	if d := destructiveElasticNorm(method, norm); d != "" {
		if method == "DELETE" && d == "DELETE "+norm {
			return fmt.Errorf("%w: DELETE %s deletes more than a document (an index, say); refused unless the scenario says allow_destructive: true", ErrPathRefused, norm)
		}
		return fmt.Errorf("%w: %s destroys data or reconfigures the cluster; refused unless the scenario says allow_destructive: true", ErrPathRefused, d)
	}
	return nil
}

// normElasticPath returns path p (its query dropped) with each segment
// decoded, empty segments dropped, and an error for a "." or ".."
// segment or a bad escape.
func normElasticPath(p string) (string, error) {
	raw, _, _ := strings.Cut(p, "?")
	var b strings.Builder
	for _, s := range strings.Split(raw, "/") {
		d, err := url.PathUnescape(s)
		if err != nil {
			return "", fmt.Errorf("path %q: %v", p, err)
		}
		// A decoded '/' is a separator again for any server or proxy
		// that decodes before it routes.
		for _, part := range strings.Split(d, "/") {
			if part == "." || part == ".." {
				return "", fmt.Errorf("path %q has a %q segment: a value may not climb out of its place", p, part)
			}
			if part != "" {
				b.WriteByte('/')
				b.WriteString(part)
			}
		}
	}
	if b.Len() == 0 {
		return "/", nil
	}
	return b.String(), nil
}

// destructiveElasticNorm is what the elastic rule refuses in method and
// normalised path norm, "" when nothing: a DELETE of anything but one
// document (/{index}/_doc/{id}), or a destructive endpoint.
func destructiveElasticNorm(method, norm string) string {
	if method == "DELETE" {
		segs := strings.Split(strings.TrimPrefix(norm, "/"), "/")
		if len(segs) != 3 || segs[1] != "_doc" {
			return "DELETE " + norm
		}
	}
	for _, d := range elasticDestructive {
		if strings.Contains(norm, d) {
			return d
		}
	}
	return ""
}

// elasticReadPaths are path parts whose POSTs only read.
var elasticReadPaths = []string{"/_search", "/_count", "/_msearch", "/_mget", "/_validate", "/_explain", "/_field_caps"}

// ReadOnly: GET and HEAD, and POSTs that search or count.
func (e *ElasticTemplate) ReadOnly() bool {
	switch e.HTTPMethod() {
	case "GET", "HEAD":
		return true
	case "POST":
		for _, p := range elasticReadPaths {
			if strings.Contains(e.Path, p) {
				return true
			}
		}
	}
	return false
}

// Templates: the path, then the body.
func (e *ElasticTemplate) Templates() []string { return []string{e.Path, e.Body} }

// Places: the path's values are escaped for their segment (or the
// query), the body's for where they stand in its JSON.
func (e *ElasticTemplate) Places(part int, segs []scenarios.Segment) []scenarios.Place {
	if part == 0 {
		return scenarios.PathPlaces(segs)
	}
	return scenarios.JSONPlaces(segs)
}

// customFormat decodes the elastic form.
type customFormat struct{}

func (customFormat) Decode(n *yaml.Node) (scenarios.CustomForm, error) {
	e := &ElasticTemplate{}
	return e, scenarios.DecodeNode(n, e)
}

// destructiveElastic is what the elastic custom ops' rule refuses in
// method and path (normalised: "." and ".." segments refused, escapes
// decoded), "" when nothing.
func destructiveElastic(method, path string) string {
	norm, err := normElasticPath(path)
	if err != nil {
		return "a path that climbs (" + path + ")"
	}
	return destructiveElasticNorm(method, norm)
}
