package elastic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/soakd/soakd/capture"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
	"slices"
	"strings"
)

// elasticDialect: an op is one HTTP request. In the op log,
//
//	{"ts": 1.5, "op": "POST", "args": ["/products/_search", {"query": {"match": {"title": "lamp"}}}]}
//
// op is the method (GET, POST, PUT, DELETE, HEAD), args the path (after
// the target URL, with its query string) and an optional body: a JSON
// object, an array (an NDJSON body, one element a line, for _bulk and
// _msearch) or a string sent as it is. The group is the method and the
// path's endpoint (its first segment starting with _): POST_SEARCH,
// PUT_DOC, POST_BULK; GET for a path without one. key_prefix goes
// before every index the path names; a path naming none (/_search,
// /_bulk) or a body naming "_index" is refused with a prefix, since the
// prefix could not keep it off other indices.
type elasticDialect struct{}

var elasticMethods = []string{"GET", "POST", "PUT", "DELETE", "HEAD"}

// elasticSkipped are path parts whose requests continue state the
// captured session held (scroll ids, points in time): not replayed.
var elasticSkipped = []string{"/_search/scroll", "/_pit"}

func (elasticDialect) Check(op capture.Op, prefix string) (string, bool, error) {
	method := strings.ToUpper(string(op.Args[0]))
	if !slices.Contains(elasticMethods, method) {
		return "", false, fmt.Errorf("elastic op %q: want a method (GET, POST, PUT, DELETE or HEAD)", op.Args[0])
	}
	if len(op.Args) < 2 || len(op.Args) > 3 {
		return "", false, fmt.Errorf(`elastic op %s: want "args": [path] or [path, body], got %d args`, method, len(op.Args)-1)
	}
	if op.IsJSON(1) || !bytes.HasPrefix(op.Args[1], []byte("/")) {
		return "", false, fmt.Errorf("elastic op %s: the path %q must be a string starting with /", method, clip(op.Args[1]))
	}
	path := string(op.Args[1])
	group := method
	if ep := elasticEndpoint(path); ep != "" {
		group += "_" + strings.ToUpper(ep)
	}
	for _, s := range elasticSkipped {
		if strings.Contains(path, s) {
			return method + " " + s, true, nil
		}
	}
	if len(op.Args) == 3 && op.IsJSON(2) && !json.Valid(op.Args[2]) {
		return "", false, fmt.Errorf("elastic op %s %s: the body is not JSON", method, path)
	}
	if prefix != "" {
		if idx, _, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/"); idx == "" || idx[0] == '_' {
			return "", false, fmt.Errorf("elastic op %s %s names no index: key_prefix cannot keep it off other indices (name the index in the path, or replay without key_prefix)", method, path)
		}
		if len(op.Args) == 3 && bytes.Contains(op.Args[2], []byte(`"_index"`)) {
			return "", false, fmt.Errorf(`elastic op %s %s: its body names an "_index", which key_prefix does not remap`, method, path)
		}
	}
	return group, false, nil
}

// elasticEndpoint is the path's first segment starting with _, without
// the _ ("search" for /products/_search?q=x), "" when none.
func elasticEndpoint(path string) string {
	path, _, _ = strings.Cut(path, "?")
	for _, seg := range strings.Split(path, "/") {
		if len(seg) > 1 && seg[0] == '_' {
			return seg[1:]
		}
	}
	return ""
}

// Render's parts: the method, the path (indices prefixed) and the body
// (empty when none; an array's elements one a line).
func (elasticDialect) Render(op capture.Op, prefix string, buf []byte, parts [][]byte) ([]byte, [][]byte) {
	var ends [3]int
	start := len(buf)
	buf = append(buf, bytes.ToUpper(op.Args[0])...)
	ends[0] = len(buf) - start
	if len(op.Args) > 1 {
		buf = appendIndexPath(buf, op.Args[1], prefix)
	}
	ends[1] = len(buf) - start
	if len(op.Args) > 2 && !op.IsNull(2) {
		body := op.Args[2]
		if op.IsJSON(2) && len(body) > 0 && body[0] == '[' {
			var lines []json.RawMessage
			if json.Unmarshal(body, &lines) == nil {
				for _, l := range lines {
					buf = append(buf, l...)
					buf = append(buf, '\n')
				}
				body = nil
			}
		}
		buf = append(buf, body...)
	}
	ends[2] = len(buf) - start
	return buf, capture.Cut(buf[start:], ends[:], parts)
}

// appendIndexPath appends path with prefix before each index its first
// segment names (a comma list; none when it starts with _).
func appendIndexPath(buf, path []byte, prefix string) []byte {
	if prefix == "" || len(path) < 2 || path[1] == '_' {
		return append(buf, path...)
	}
	end := len(path)
	if i := bytes.IndexAny(path[1:], "/?"); i >= 0 {
		end = i + 1
	}
	buf = append(buf, '/')
	for i, idx := range bytes.Split(path[1:end], []byte(",")) {
		if i > 0 {
			buf = append(buf, ',')
		}
		if len(idx) > 0 && idx[0] == '-' { // an exclusion: -name
			buf = append(buf, '-')
			idx = idx[1:]
		}
		buf = append(buf, prefix...)
		buf = append(buf, idx...)
	}
	return append(buf, path[end:]...)
}

// clip shortens b for an error message.
func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

// Family is the elastic family: the elastic form of a custom op and the
// replay of op logs of HTTP requests.
var Family = &targets.Family{Name: "elastic", Custom: customFormat{}, Replay: replay{}}

// replay is the elastic replay dialect (elasticDialect) and its rules.
type replay struct{}

func (replay) Dialect() capture.Dialect { return elasticDialect{} }

// CheckReplay: the op log only, and a key_prefix that can start an
// index name.
func (replay) CheckReplay(sc *scenarios.Scenario, r *scenarios.ReplaySpec) []scenarios.FieldError {
	errs := sc.OpLogReplayProblems(r)
	if r.KeyPrefix != "" && (r.KeyPrefix != strings.ToLower(r.KeyPrefix) || strings.ContainsAny(r.KeyPrefix, "\\/*?\"<>| ,#:") || strings.ContainsAny(r.KeyPrefix[:1], "_-+")) {
		scenarios.Add(&errs, "key_prefix", "%q cannot start an index name (lower case, none of \\ / * ? \" < > | space , # :, not starting with _ - +); e.g. replay-", r.KeyPrefix)
	}
	return errs
}

// Refusal: what the custom ops' path rule refuses without
// allow_destructive.
func (replay) Refusal(sc *scenarios.Scenario, _ *scenarios.ReplaySpec, args []string) string {
	if len(args) > 1 {
		if d := destructiveElastic(strings.ToUpper(args[0]), args[1]); d != "" {
			return sc.DestructiveRefusal(d)
		}
	}
	return ""
}
