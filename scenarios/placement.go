package scenarios

import "strings"

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

// PathPlaces places segs' placeholders in a URL path template: one
// before the template's first literal '?' is in the path, after it in
// the query.
func PathPlaces(segs []Segment) []Place { return pathPlaces(segs) }

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

// JSONPlaces places segs' placeholders in a JSON (or NDJSON) template
// (jsonPlaces).
func JSONPlaces(segs []Segment) []Place { return jsonPlaces(segs) }

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

// JSONKeyStarts reports, for each of segs (a JSON template), whether it
// is a placeholder whose value begins an object's key.
func JSONKeyStarts(segs []Segment) []bool {
	places, starts := jsonPlacesStarts(segs)
	for i := range starts {
		starts[i] = starts[i] && places[i] == PlaceJSONKey
	}
	return starts
}
