package capture

import "strings"

// Which arguments of a command are keys, for key_prefix. The positions
// count from the first argument after the command name.
type keySpec uint8

const (
	keysFirst      keySpec = iota // the first argument (most commands)
	keysNone                      // no key (PING, INFO, ...)
	keysAll                       // every argument (DEL, MGET, ...)
	keysEveryOther                // arguments 1, 3, 5... (MSET k v k v)
	keysFirstTwo                  // the first two (RENAME src dst)
	keysNumKeys                   // EVAL script numkeys key... arg...
)

var keySpecs = map[string]keySpec{
	"PING": keysNone, "ECHO": keysNone, "INFO": keysNone, "DBSIZE": keysNone, "TIME": keysNone,
	"COMMAND": keysNone, "LASTSAVE": keysNone, "ROLE": keysNone, "LOLWUT": keysNone,
	"RANDOMKEY": keysNone, "SCAN": keysNone, "PUBLISH": keysNone, "SCRIPT": keysNone,
	"FUNCTION": keysNone, "MEMORY": keysNone, "SLOWLOG": keysNone, "LATENCY": keysNone,
	"CONFIG": keysNone, "FLUSHALL": keysNone, "FLUSHDB": keysNone, "SWAPDB": keysNone,
	"DEL": keysAll, "UNLINK": keysAll, "EXISTS": keysAll, "TOUCH": keysAll, "MGET": keysAll,
	"SINTER": keysAll, "SUNION": keysAll, "SDIFF": keysAll, "SINTERSTORE": keysAll,
	"SUNIONSTORE": keysAll, "SDIFFSTORE": keysAll, "PFCOUNT": keysAll, "PFMERGE": keysAll,
	"MSET": keysEveryOther, "MSETNX": keysEveryOther,
	"RENAME": keysFirstTwo, "RENAMENX": keysFirstTwo, "RPOPLPUSH": keysFirstTwo,
	"LMOVE": keysFirstTwo, "COPY": keysFirstTwo, "SMOVE": keysFirstTwo, "GEOSEARCHSTORE": keysFirstTwo,
	"EVAL": keysNumKeys, "EVALSHA": keysNumKeys, "EVAL_RO": keysNumKeys, "EVALSHA_RO": keysNumKeys,
	"FCALL": keysNumKeys, "FCALL_RO": keysNumKeys,
}

// IsKey reports whether argument i (0 = the first after the command
// name) of command cmd (upper case) is a key; args are the arguments.
func IsKey(cmd string, args [][]byte, i int) bool {
	switch keySpecs[cmd] {
	case keysFirst:
		return i == 0
	case keysAll:
		return true
	case keysEveryOther:
		return i%2 == 0
	case keysFirstTwo:
		return i < 2
	case keysNumKeys:
		if len(args) < 2 {
			return false
		}
		n := atoi(args[1])
		return i >= 2 && i < 2+n
	}
	return false
}

func atoi(b []byte) int {
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' || n > 1<<20 {
			return 0
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// Remap appends command args (args[0] the command name) to buf with
// prefix before every key, and returns the new buffer and the parts
// (aliasing it), reusing parts.
func Remap(args [][]byte, prefix string, buf []byte, parts [][]byte) ([]byte, [][]byte) {
	if len(args) == 0 {
		return buf, parts[:0]
	}
	cmd := strings.ToUpper(string(args[0]))
	var ends [64]int
	endList := ends[:0]
	for i, a := range args {
		if i > 0 && prefix != "" && IsKey(cmd, args[1:], i-1) {
			buf = append(buf, prefix...)
		}
		buf = append(buf, a...)
		endList = append(endList, len(buf))
	}
	parts = parts[:0]
	start := 0
	for _, e := range endList {
		parts = append(parts, buf[start:e:e])
		start = e
	}
	return buf, parts
}
