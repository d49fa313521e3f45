package datagen

import (
	"encoding/json"
	"math/rand/v2"
	"unicode/utf8"

	"github.com/soakd/soakd/scenarios"
)

// needsEscape reports whether a value of kind k can hold bytes that
// change the structure of a template where it lands (place). Numbers
// never can; in a JSON string neither can UUIDs, [A-Za-z0-9] bytes and
// words; in a path or query, words' spaces must be escaped.
func needsEscape(k scenarios.GenKind, place scenarios.Place) bool {
	switch k {
	case scenarios.GenLiteral, scenarios.GenInt, scenarios.GenFloat, scenarios.GenSeq, scenarios.GenNowMs:
		return false
	}
	switch place {
	case scenarios.PlaceRaw:
		return false
	case scenarios.PlaceJSONString, scenarios.PlaceJSONKey:
		return k != scenarios.GenUUID && k != scenarios.GenBytes && k != scenarios.GenText
	case scenarios.PlacePath, scenarios.PlaceQuery:
		return k != scenarios.GenUUID && k != scenarios.GenBytes
	}
	return true // bare JSON: anything but a number may need quotes
}

// appendPlaced appends g's value, escaped for where it lands.
func (r *Renderer) appendPlaced(b []byte, g *gen, key []byte, seq uint64, rng *rand.Rand) []byte {
	if !g.escape {
		return r.appendGen(b, g, key, seq, rng)
	}
	r.scratch = r.appendGen(r.scratch[:0], g, key, seq, rng)
	return appendEscaped(b, r.scratch, g.place)
}

// appendEscaped appends v escaped for place.
func appendEscaped(b, v []byte, place scenarios.Place) []byte {
	switch place {
	case scenarios.PlaceJSONString, scenarios.PlaceJSONKey:
		return appendJSONContent(b, v)
	case scenarios.PlaceJSONBare:
		if jsonScalar(v) {
			return append(b, v...)
		}
		b = append(b, '"')
		b = appendJSONContent(b, v)
		return append(b, '"')
	case scenarios.PlacePath, scenarios.PlaceQuery:
		return appendURLEscaped(b, v)
	}
	return append(b, v...)
}

// jsonScalar reports whether v is one JSON number, string, true, false
// or null (so, bare, it is one value and no more).
func jsonScalar(v []byte) bool {
	if len(v) == 0 || v[0] == '{' || v[0] == '[' || v[0] == ' ' || v[0] == '\t' || v[0] == '\n' || v[0] == '\r' {
		return false
	}
	return json.Valid(v)
}

// appendJSONContent appends v as the content of a JSON string: quotes,
// backslashes and control bytes escaped, invalid UTF-8 as U+FFFD.
func appendJSONContent(b, v []byte) []byte {
	const hexd = "0123456789abcdef"
	for i := 0; i < len(v); {
		c := v[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20 || c == 0x7f:
				b = append(b, '\\', 'u', '0', '0', hexd[c>>4], hexd[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(v[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, v[i:i+n]...)
		}
		i += n
	}
	return b
}

// appendURLEscaped appends v with every byte but RFC 3986's unreserved
// ones (A-Z a-z 0-9 - . _ ~) percent-encoded: a '/', '?', '#' or '&' in
// a value stays inside its path segment or query value.
func appendURLEscaped(b, v []byte) []byte {
	const hexd = "0123456789ABCDEF"
	for _, c := range v {
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b = append(b, c)
			continue
		}
		b = append(b, '%', hexd[c>>4], hexd[c&0xf])
	}
	return b
}
