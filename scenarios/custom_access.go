package scenarios

import "strings"

// Whether a custom op only reads: the adapters give a read the read
// timeout (and CQL its read consistency), and a growth phase refuses a
// read as its insert. An op soakd cannot tell (a Lua script, a command
// it does not know) counts as a write.

// redisReads are the redis commands that never change data.
var redisReads = []string{
	"GET", "MGET", "GETRANGE", "STRLEN", "EXISTS", "TYPE", "TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME",
	"HGET", "HMGET", "HGETALL", "HKEYS", "HVALS", "HLEN", "HEXISTS", "HSTRLEN", "HRANDFIELD", "HSCAN",
	"LRANGE", "LINDEX", "LLEN", "LPOS",
	"SMEMBERS", "SISMEMBER", "SMISMEMBER", "SCARD", "SRANDMEMBER", "SINTER", "SUNION", "SDIFF", "SINTERCARD", "SSCAN",
	"ZRANGE", "ZREVRANGE", "ZRANGEBYSCORE", "ZREVRANGEBYSCORE", "ZRANGEBYLEX", "ZREVRANGEBYLEX", "ZSCORE",
	"ZMSCORE", "ZRANK", "ZREVRANK", "ZCARD", "ZCOUNT", "ZLEXCOUNT", "ZRANDMEMBER", "ZSCAN", "ZINTER", "ZUNION", "ZDIFF", "ZINTERCARD",
	"XRANGE", "XREVRANGE", "XLEN", "XPENDING", "XINFO",
	"GETBIT", "BITCOUNT", "BITPOS", "PFCOUNT", "GEOPOS", "GEODIST", "GEOHASH", "GEOSEARCH", "GEORADIUS_RO", "GEORADIUSBYMEMBER_RO",
	"SCAN", "DBSIZE", "RANDOMKEY", "OBJECT", "MEMORY", "DUMP", "PING", "ECHO", "TIME", "INFO",
	"FT.SEARCH", "FT.AGGREGATE", "FT.INFO", "JSON.GET", "JSON.MGET", "JSON.TYPE", "JSON.STRLEN", "JSON.ARRLEN", "JSON.OBJKEYS",
	"EVALSHA_RO", "EVAL_RO", "FCALL_RO", "SORT_RO", "LCS", "SUBSTR",
}

// mongoReads are the mongo custom commands that never change data (an
// aggregate with $out or $merge writes).
var mongoReads = []string{"find", "aggregate", "count", "distinct"}

// elasticReadPaths are path parts whose POSTs only read.
var elasticReadPaths = []string{"/_search", "/_count", "/_msearch", "/_mget", "/_validate", "/_explain", "/_field_caps"}

// ReadOnly reports whether the op's form for target kind k only reads:
// redis commands (every command of a multi) from the read list (GET,
// HGETALL, ZRANGE, ...); mongo find, count, distinct and an aggregate
// without $out or $merge; elastic GET and HEAD, and searches and
// counts; a CQL SELECT. A script and an op without a form for k are
// not.
func (c *CustomOp) ReadOnly(k TargetKind) bool {
	switch k {
	case KindRedis, KindEmbedded:
		if c.Redis == nil || c.Redis.Script != "" {
			return false
		}
		cmds := c.Redis.Commands()
		for _, cmd := range cmds {
			if len(cmd) == 0 || !contains(redisReads, strings.ToUpper(cmd[0])) {
				return false
			}
		}
		return len(cmds) > 0
	case KindMongo:
		if c.Mongo == nil {
			return false
		}
		cmd := MongoCommandName(c.Mongo.Command)
		if cmd == "" {
			// Placeholders may keep the raw template from parsing.
			segs, err := ParseTemplate(c.Mongo.Command, func(string) bool { return true })
			if err != nil {
				return false
			}
			cmd = MongoCommandName(sampleRender(segs))
		}
		if cmd == "aggregate" && (strings.Contains(c.Mongo.Command, `"$out"`) || strings.Contains(c.Mongo.Command, `"$merge"`)) {
			return false
		}
		return contains(mongoReads, cmd)
	case KindElastic:
		if c.Elastic == nil {
			return false
		}
		switch c.Elastic.HTTPMethod() {
		case "GET", "HEAD":
			return true
		case "POST":
			for _, p := range elasticReadPaths {
				if strings.Contains(c.Elastic.Path, p) {
					return true
				}
			}
		}
		return false
	case KindCQL:
		return c.CQL != nil && c.CQL.IsRead()
	}
	return false
}
