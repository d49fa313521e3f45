package resp

import (
	"fmt"
	"github.com/soakd/soakd/scenarios"
	"slices"
	"strings"
)

// What a redis custom op may run without allow_destructive is decided on
// what validate can see: a command name is plain text; a subcommand of
// a command with destructive subcommands (CONFIG SET, SCRIPT FLUSH,
// FUNCTION LOAD...) is plain text or a {choice:...} whose every value is
// checked; a script's redis.call/redis.pcall names its command (and
// such a subcommand) as a string literal. Anything else could render a
// destructive command validate cannot see, and is refused unless the
// scenario says allow_destructive: true. The server is the last word:
// a run without allow_destructive also runs as an ACL user that cannot
// run them (targets/redis).

// subcommanded are the commands whose subcommand decides whether
// they are destructive (each has a "NAME SUB" entry in destructiveCommands).
func subcommanded(name string) bool {
	for _, d := range destructiveCommands {
		if first, _, ok := strings.Cut(d, " "); ok && first == name {
			return true
		}
	}
	return false
}

// maxSubcommandExpansion bounds the values a subcommand template's
// choices are expanded into to be checked one by one.
const maxSubcommandExpansion = 4096

// subcommandValues lists every value template segs can render when each
// segment is text or a choice (bindings: the named bindings' generator
// segments, a choice binding expanded like a {choice:...}); ok is false
// when some segment is anything else or there are too many values.
func subcommandValues(segs []scenarios.Segment, binding func(name string) (scenarios.Segment, bool)) (vals []string, ok bool) {
	vals = []string{""}
	for _, g := range segs {
		if g.Kind == scenarios.GenBinding {
			b, found := binding(g.Text)
			if !found {
				return nil, false
			}
			g = b
		}
		var alts []string
		switch g.Kind {
		case scenarios.GenLiteral:
			alts = []string{g.Text}
		case scenarios.GenChoice:
			alts = g.Choices
		default:
			return nil, false
		}
		if len(vals)*len(alts) > maxSubcommandExpansion {
			return nil, false
		}
		next := make([]string, 0, len(vals)*len(alts))
		for _, v := range vals {
			for _, a := range alts {
				next = append(next, v+a)
			}
		}
		vals = next
	}
	return vals, true
}

// destructiveSubcommand checks command cmd (its name plain text, up in
// upper case) whose subcommand is the template cmd[1]: the destructive
// command one of its values makes, or why it cannot be checked; both ""
// when it is safe.
func destructiveSubcommand(up string, sub string, isBinding func(string) bool, binding func(string) (scenarios.Segment, bool)) (d, why string) {
	segs, err := scenarios.ParseTemplate(sub, isBinding)
	if err != nil {
		return "", "" // reported with the op's other template errors
	}
	if lit, ok := scenarios.Literal(segs); ok {
		return destructive([]string{up, lit}), ""
	}
	vals, ok := subcommandValues(segs, binding)
	if !ok {
		return "", fmt.Sprintf("the subcommand of %s, %q, is a placeholder that can render any text (%s has destructive subcommands); write it as plain text or a {choice:...} of plain values", up, sub, up)
	}
	for _, v := range vals {
		if d := destructive([]string{up, v}); d != "" {
			return d, ""
		}
	}
	return "", ""
}

// redisSafeFields are the fields of Lua's redis table a script may use
// without allow_destructive: none of them runs a command.
var redisSafeFields = []string{
	"log", "sha1hex", "error_reply", "status_reply", "setresp", "set_repl", "replicate_commands",
	"breakpoint", "debug", "acl_check_cmd", "REDIS_VERSION", "REDIS_VERSION_NUM",
	"LOG_DEBUG", "LOG_VERBOSE", "LOG_NOTICE", "LOG_WARNING",
	"REPL_ALL", "REPL_AOF", "REPL_REPLICA", "REPL_SLAVE", "REPL_NONE",
}

// luaEscapes are the Lua names through which a script can reach the
// redis table, or build and run code, without naming redis.call.
var luaEscapes = []string{"_G", "_ENV", "getfenv", "setfenv", "loadstring", "load", "dofile", "loadfile", "require", "module", "rawget"}

// ScriptProblem is what the static check finds in a Lua script: the
// line within the script and what is wrong.
type ScriptProblem struct {
	Line int
	Msg  string
}

// checkScript returns the first call in Lua source src that validate
// cannot vouch for: a redis.call/redis.pcall whose command (or, for
// CONFIG, SCRIPT, FUNCTION..., subcommand) is not a string literal, a
// destructive command named as one, any other use of the redis table
// but its harmless fields, or a way around them (_G, loadstring...).
func checkScript(src string) *ScriptProblem {
	toks, err := luaTokens(src)
	if err != nil {
		return &ScriptProblem{Line: err.line, Msg: err.msg}
	}
	at := func(i int) luaToken {
		if i < len(toks) {
			return toks[i]
		}
		return luaToken{kind: luaEOF}
	}
	for i, t := range toks {
		if t.kind != luaName || (i > 0 && (toks[i-1].text == "." || toks[i-1].text == ":")) {
			continue
		}
		if slices.Contains(luaEscapes, t.text) {
			return &ScriptProblem{Line: t.line, Msg: fmt.Sprintf("the script uses %s, through which it could run any command", t.text)}
		}
		if t.text != "redis" {
			continue
		}
		if at(i+1).text == "=" && at(i+2).text != "=" {
			continue // a table's key, or an assignment to the name: no use of the table
		}
		if at(i+1).text != "." || at(i+2).kind != luaName {
			return &ScriptProblem{Line: t.line, Msg: "the script uses the redis table other than as redis.call(\"COMMAND\", ...) (an alias or a computed field could run any command)"}
		}
		field := at(i + 2).text
		if field != "call" && field != "pcall" {
			if slices.Contains(redisSafeFields, field) {
				continue
			}
			return &ScriptProblem{Line: t.line, Msg: fmt.Sprintf("the script uses redis.%s, which is not one soakd can check", field)}
		}
		j := i + 3
		paren := at(j).text == "("
		if paren {
			j++
		}
		name := at(j)
		after := at(j + 1).text
		if name.kind != luaString || name.escaped || (paren && after != "," && after != ")") {
			return &ScriptProblem{Line: t.line, Msg: fmt.Sprintf("the command of redis.%s is not a string literal (it comes from ARGV, KEYS, a variable or an expression), so it could be any command", field)}
		}
		cmd := []string{strings.ToUpper(name.text)}
		if subcommanded(cmd[0]) {
			sub := at(j + 2)
			if !paren || after != "," || sub.kind != luaString || sub.escaped || (at(j+3).text != "," && at(j+3).text != ")") {
				return &ScriptProblem{Line: t.line, Msg: fmt.Sprintf("the subcommand of redis.%s(%q, ...) is not a string literal, so it could be a destructive one", field, name.text)}
			}
			cmd = append(cmd, sub.text)
		}
		if d := destructive(cmd); d != "" {
			return &ScriptProblem{Line: t.line, Msg: fmt.Sprintf("the script calls %s, which destroys data or stops or reconfigures the server", d)}
		}
	}
	return nil
}

type luaKind uint8

const (
	luaEOF luaKind = iota
	luaName
	luaString
	luaNumber
	luaPunct
)

// luaToken is one token of a Lua source: a name, a string (its value,
// and whether it had an escape, so its value is not plainly its text),
// a number or punctuation.
type luaToken struct {
	kind    luaKind
	text    string
	escaped bool
	line    int
}

type luaError struct {
	line int
	msg  string
}

// luaTokens splits src into tokens, dropping comments.
func luaTokens(src string) ([]luaToken, *luaError) {
	var out []luaToken
	line := 1
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '-' && strings.HasPrefix(src[i:], "--"):
			i += 2
			if lvl, ok := longBracket(src[i:]); ok {
				end, n := closeLong(src[i:], lvl)
				if end < 0 {
					return nil, &luaError{line, "an unterminated long comment"}
				}
				line += n
				i += end
				continue
			}
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '[' && (strings.HasPrefix(src[i:], "[[") || strings.HasPrefix(src[i:], "[=")):
			lvl, ok := longBracket(src[i:])
			if !ok {
				out = append(out, luaToken{kind: luaPunct, text: "[", line: line})
				i++
				continue
			}
			end, n := closeLong(src[i:], lvl)
			if end < 0 {
				return nil, &luaError{line, "an unterminated long string"}
			}
			body := src[i+lvl+2 : i+end-lvl-2]
			body = strings.TrimPrefix(body, "\n")
			out = append(out, luaToken{kind: luaString, text: body, line: line})
			line += n
			i += end
		case c == '"' || c == '\'':
			var b strings.Builder
			esc := false
			j := i + 1
			for ; j < len(src) && src[j] != c; j++ {
				if src[j] == '\n' {
					return nil, &luaError{line, "an unterminated string"}
				}
				if src[j] == '\\' {
					esc = true
					j++
					if j < len(src) && src[j] == '\n' {
						line++
					}
					continue
				}
				b.WriteByte(src[j])
			}
			if j >= len(src) {
				return nil, &luaError{line, "an unterminated string"}
			}
			out = append(out, luaToken{kind: luaString, text: b.String(), escaped: esc, line: line})
			i = j + 1
		case luaNameStart(c):
			j := i
			for j < len(src) && luaNameByte(src[j]) {
				j++
			}
			out = append(out, luaToken{kind: luaName, text: src[i:j], line: line})
			i = j
		case c >= '0' && c <= '9':
			j := i
			for j < len(src) && (luaNameByte(src[j]) || src[j] == '.') {
				j++
			}
			out = append(out, luaToken{kind: luaNumber, text: src[i:j], line: line})
			i = j
		case c == '.' && strings.HasPrefix(src[i:], ".."):
			j := i
			for j < len(src) && src[j] == '.' {
				j++
			}
			out = append(out, luaToken{kind: luaPunct, text: src[i:j], line: line})
			i = j
		default:
			out = append(out, luaToken{kind: luaPunct, text: string(c), line: line})
			i++
		}
	}
	return out, nil
}

// longBracket reports whether s starts a long bracket [[ or [=*[ and
// its level (the number of '=').
func longBracket(s string) (int, bool) {
	if len(s) < 2 || s[0] != '[' {
		return 0, false
	}
	n := 1
	for n < len(s) && s[n] == '=' {
		n++
	}
	if n < len(s) && s[n] == '[' {
		return n - 1, true
	}
	return 0, false
}

// closeLong finds the end of the long bracket of level lvl that starts
// s: the offset just past its closing bracket (-1 if none) and the
// newlines within.
func closeLong(s string, lvl int) (int, int) {
	closing := "]" + strings.Repeat("=", lvl) + "]"
	k := strings.Index(s[lvl+2:], closing)
	if k < 0 {
		return -1, 0
	}
	end := lvl + 2 + k + len(closing)
	return end, strings.Count(s[:end], "\n")
}

// luaNameStart and luaNameByte are Lua's name characters.
func luaNameStart(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' }

func luaNameByte(c byte) bool { return luaNameStart(c) || c >= '0' && c <= '9' }
