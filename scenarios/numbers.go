package scenarios

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// notANumber is the problem with value v written where a number goes
// (yaml.v3 says "cannot unmarshal !!str `5k` into float64"), with the
// number to write instead when v reads as one to a person: 5k, 1.5M,
// 20,000, 100/s. float says the field takes fractions (else only whole
// numbers are suggested).
func notANumber(v string, float bool) string {
	msg := v + " is not a number"
	if n, ok := readNumber(v); ok && (float || n == math.Trunc(n)) {
		msg += "; write " + strconv.FormatFloat(n, 'f', -1, 64)
	}
	return msg
}

// readNumber reads s as a person would: a number with a k, m or g
// (thousand, million, billion) suffix, thousands separators or a
// trailing ops/s.
func readNumber(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	for _, unit := range []string{"ops/s", "/s"} {
		s = strings.TrimSpace(strings.TrimSuffix(s, unit))
	}
	s = strings.ReplaceAll(s, ",", "")
	mult := 1.0
	if s != "" {
		switch s[len(s)-1] {
		case 'k', 'K':
			mult = 1e3
		case 'm', 'M':
			mult = 1e6
		case 'g', 'G', 'b', 'B':
			mult = 1e9
		}
		if mult != 1 {
			s = s[:len(s)-1]
		}
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(n, 0) || math.IsNaN(n) {
		return 0, false
	}
	return math.Round(n*mult*1e6) / 1e6, true
}

var notNumberMsgRE = regexp.MustCompile(`^(.+) is not a number`)

// nameNumberFields names, in each "is not a number" problem, the key
// on the problem's line whose value it is, so the message reads
// "phases[0].rate: 5k is not a number; write 5000". The name goes in
// the message, not in Field: a problem without a field is the decoder's
// (its field is left out of validation, FieldProblems).
func nameNumberFields(doc *yaml.Node, probs Problems) {
	for i := range probs {
		p := &probs[i]
		m := notNumberMsgRE.FindStringSubmatch(p.Msg)
		if p.Field != "" || p.Line == 0 || m == nil {
			continue
		}
		if path := scalarPath(doc, "", p.Line, m[1]); path != "" {
			p.Msg = path + ": " + p.Msg
		}
	}
}

// scalarPath is the dotted path of the first scalar value on line
// whose text is v, "" if none.
func scalarPath(n *yaml.Node, path string, line int, v string) string {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			p := k.Value
			if path != "" {
				p = path + "." + k.Value
			}
			if val.Kind == yaml.ScalarNode && val.Line == line && val.Value == v {
				return p
			}
			if found := scalarPath(val, p, line, v); found != "" {
				return found
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			p := fmt.Sprintf("%s[%d]", path, i)
			if c.Kind == yaml.ScalarNode && c.Line == line && c.Value == v {
				return p
			}
			if found := scalarPath(c, p, line, v); found != "" {
				return found
			}
		}
	}
	return ""
}
