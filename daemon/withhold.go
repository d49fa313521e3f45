package daemon

import (
	"errors"
	"strings"

	"github.com/soakd/soakd/scenarios"
)

// withheld replaces a quoted value in an API error.
const withheld = "(value withheld: check the file with soakd validate)"

// withholdValues returns the problems with every double-quoted value in
// their messages replaced: the daemon's API answers name the file, line
// and field of a problem but never quote what the file holds (a POST can
// name any file in the scenario directories).
func withholdValues(ps scenarios.Problems) scenarios.Problems {
	out := make(scenarios.Problems, len(ps))
	for i, p := range ps {
		p.Msg = withholdQuoted(p.Msg)
		out[i] = p
	}
	return out
}

// withholdQuoted replaces each "..." in msg (Go %q quoting: backslash
// escapes) by a note that the value is withheld; an unterminated quote
// withholds the rest of the message.
func withholdQuoted(msg string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(msg, '"')
		if i < 0 {
			b.WriteString(msg)
			return b.String()
		}
		b.WriteString(msg[:i])
		b.WriteString(withheld)
		rest := msg[i+1:]
		end := -1
		for j := 0; j < len(rest); j++ {
			if rest[j] == '\\' {
				j++
				continue
			}
			if rest[j] == '"' {
				end = j
				break
			}
		}
		if end < 0 {
			return b.String()
		}
		msg = rest[end+1:]
	}
}

// apiMessage is the text of a refused start for the API: a scenario's
// problems keep file, line, field and rule; any quoted value (from the
// file, or a target URL's options) is withheld.
func apiMessage(err error) string {
	var ps scenarios.Problems
	if errors.As(err, &ps) {
		return withholdValues(ps).Error()
	}
	return withholdQuoted(err.Error())
}
