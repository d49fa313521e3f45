package scenarios

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// Place is where a placeholder's value lands in a rendered template,
// which says how the value is escaped so that it cannot change the
// template's structure: a JSON body's value stays one JSON value, a
// path's value stays inside its path segment.
type Place uint8

// Places.
const (
	PlaceRaw        Place = iota // as is (redis and CQL arguments are separate values)
	PlaceJSONString              // inside a JSON string that is a value: escaped as string content
	PlaceJSONKey                 // inside a JSON string that is an object's key: escaped as string content
	PlaceJSONBare                // outside any JSON string: a lone JSON scalar as is, anything else quoted as a string
	PlacePath                    // in a URL path: one path segment's escaping (url.PathEscape)
	PlaceQuery                   // in a URL query: url.QueryEscape
)

// TemplatePlaces returns where each of segs' placeholders lands (an
// entry per segment; literals get PlaceRaw), segs being template part
// of op form k as CustomOp.Templates lists them: elastic's path (part
// 0) and JSON body (part 1), mongo's JSON command (part 0). Other kinds'
// values are separate arguments and land raw.
func TemplatePlaces(k TargetKind, part int, segs []Segment) []Place {
	switch {
	case k == KindElastic && part == 0:
		return pathPlaces(segs)
	case k == KindElastic && part == 1, k == KindMongo && part == 0:
		return jsonPlaces(segs)
	}
	return make([]Place, len(segs))
}

// pathPlaces: a placeholder before the template's first literal '?' is
// in the path, after it in the query.
func pathPlaces(segs []Segment) []Place {
	out := make([]Place, len(segs))
	query := false
	for i, g := range segs {
		if g.Kind == GenLiteral {
			query = query || strings.Contains(g.Text, "?")
			continue
		}
		out[i] = PlacePath
		if query {
			out[i] = PlaceQuery
		}
	}
	return out
}

// jsonPlaces follows the JSON (or NDJSON) text of the literals, as far
// as strings, objects and keys go, and places each placeholder where it
// stands: in a key, in a string value, or bare.
func jsonPlaces(segs []Segment) []Place {
	out, _ := jsonPlacesStarts(segs)
	return out
}

// jsonPlacesStarts is jsonPlaces, with, for each placeholder in a
// string, whether only placeholders come before it in that string (so
// its value may begin the string).
func jsonPlacesStarts(segs []Segment) ([]Place, []bool) {
	out := make([]Place, len(segs))
	starts := make([]bool, len(segs))
	strText := 0     // literal bytes in the current string so far
	var stack []byte // '{' or '['
	inStr, esc, strIsKey := false, false, false
	expectKey := false // in an object, where a key comes next
	for i, g := range segs {
		if g.Kind != GenLiteral {
			switch {
			case inStr && strIsKey:
				out[i], starts[i] = PlaceJSONKey, strText == 0
			case inStr:
				out[i], starts[i] = PlaceJSONString, strText == 0
			default:
				out[i] = PlaceJSONBare
			}
			continue
		}
		for j := 0; j < len(g.Text); j++ {
			c := g.Text[j]
			if inStr {
				strText++
				switch {
				case esc:
					esc = false
				case c == '\\':
					esc = true
				case c == '"':
					inStr = false
				}
				continue
			}
			switch c {
			case '"':
				inStr, strText = true, 0
				strIsKey = expectKey && len(stack) > 0 && stack[len(stack)-1] == '{'
				expectKey = false
			case '{':
				stack = append(stack, c)
				expectKey = true
			case '[':
				stack = append(stack, c)
				expectKey = false
			case '}', ']':
				if len(stack) > 0 {
					stack = stack[:len(stack)-1]
				}
				expectKey = false
			case ',':
				expectKey = len(stack) > 0 && stack[len(stack)-1] == '{'
			case ':':
				expectKey = false
			}
		}
	}
	return out, starts
}

// MongoKeyStarts reports, for each of segs (a mongo command template),
// whether it is a placeholder whose value begins an object's key.
func MongoKeyStarts(segs []Segment) []bool {
	places, starts := jsonPlacesStarts(segs)
	for i := range starts {
		starts[i] = starts[i] && places[i] == PlaceJSONKey
	}
	return starts
}

// MayStartWithDollar reports whether segment g, a placeholder, can
// render a value that begins with '$' (a mongo operator's name in a key):
// key is the keyspace's prefix and binding a named binding.
func MayStartWithDollar(g Segment, keyPrefix string, binding func(name string) (Binding, bool)) bool {
	switch g.Kind {
	case GenKey:
		return keyPrefix == "" || keyPrefix[0] == '$'
	case GenChoice:
		for _, c := range g.Choices {
			if strings.HasPrefix(c, "$") {
				return true
			}
		}
		return false
	case GenBinding:
		b, ok := binding(g.Text)
		if !ok {
			return true
		}
		if b.Gen == "" {
			return strings.HasPrefix(b.Prefix, "$")
		}
		s, err := ParseGenerator(b.Gen)
		return err != nil || MayStartWithDollar(s, keyPrefix, binding)
	case GenCorpus:
		return true // a document's text: anything
	}
	return false // numbers, UUIDs, [A-Za-z0-9] bytes, words
}

// ErrPathRefused wraps a rendered elastic path that the safety rules
// refuse.
var ErrPathRefused = errors.New("refused")

// CheckElasticPath applies the elastic safety rules to a path as it
// will be sent (p, with its query): no segment may be "." or ".." once
// decoded (a value cannot climb out of its segment), and unless
// allowDestructive, a DELETE must name one document
// (/{index}/_doc/{id}) and no part of the normalised path may be one of
// the destructive endpoints. Validate applies it to each template
// rendered with stand-in values, a run to every rendered path before it
// is sent.
func CheckElasticPath(method, p string, allowDestructive bool) error {
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
