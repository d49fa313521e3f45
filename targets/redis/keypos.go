package redis

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
	"github.com/soakd/soakd/targets/resp"
)

// Where the keys of the commands custom ops use are, known without a
// server (COMMAND INFO's first, last and step), so validate can refuse a
// cross-slot op in cluster mode before any server is dialled; and where
// the keys of the common commands with movable keys are (the numkeys
// forms), which COMMAND INFO does not say.

// staticKeyPos lists commands' key positions by lower-case name.
var staticKeyPos = func() map[string]commandKeys {
	m := map[string]commandKeys{}
	add := func(k commandKeys, names string) {
		for _, n := range strings.Fields(names) {
			m[n] = k
		}
	}
	add(commandKeys{1, 1, 1, false}, `get set setex psetex setnx append incr incrby decr decrby incrbyfloat getset getdel getex
		strlen setrange getrange substr expire pexpire expireat pexpireat expiretime ttl pttl persist type dump restore
		hset hsetnx hget hmset hmget hdel hgetall hincrby hincrbyfloat hexists hkeys hvals hlen hstrlen hscan hrandfield
		lpush rpush lpushx rpushx lpop rpop lrange llen lindex lset lrem ltrim linsert lpos
		sadd srem smembers sismember smismember scard spop srandmember sscan
		zadd zrem zrange zrevrange zrangebyscore zrevrangebyscore zrangebylex zrevrangebylex zscore zmscore zrank zrevrank
		zcard zcount zlexcount zincrby zpopmin zpopmax zremrangebyscore zremrangebyrank zremrangebylex zscan zrandmember
		pfadd xadd xlen xrange xrevrange xdel xtrim xack xclaim xautoclaim xpending setbit getbit bitcount bitpos bitfield
		bitfield_ro geoadd geopos geodist geohash georadius_ro georadiusbymember_ro geosearch
		json.get json.set json.del json.forget json.type json.numincrby json.nummultby json.strappend json.strlen
		json.arrappend json.arrinsert json.arrlen json.arrpop json.arrtrim json.arrindex json.objkeys json.objlen json.toggle json.clear json.merge`)
	add(commandKeys{1, -1, 1, false}, `mget del unlink exists touch watch sinter sunion sdiff pfcount pfmerge sinterstore sunionstore sdiffstore`)
	add(commandKeys{1, -2, 1, false}, `blpop brpop bzpopmin bzpopmax json.mget`)
	add(commandKeys{1, -1, 2, false}, `mset msetnx`)
	add(commandKeys{1, -1, 3, false}, `json.mset`)
	add(commandKeys{1, 2, 1, false}, `rename renamenx smove rpoplpush brpoplpush lmove blmove copy geosearchstore zrangestore`)
	add(commandKeys{2, -1, 1, false}, `bitop`)
	for _, n := range slices.Collect(maps.Keys(numKeysAt)) {
		m[n] = commandKeys{movable: true}
	}
	return m
}()

// numKeysAt gives, for a command whose keys follow a numkeys argument,
// the position of numkeys and whether a destination key comes first.
var numKeysAt = map[string]struct {
	at   int
	dest bool
}{
	"zunionstore": {2, true}, "zinterstore": {2, true}, "zdiffstore": {2, true},
	"zunion": {1, false}, "zinter": {1, false}, "zdiff": {1, false}, "zintercard": {1, false},
	"sintercard": {1, false}, "lmpop": {1, false}, "zmpop": {1, false},
	"blmpop": {2, false}, "bzmpop": {2, false},
}

// movableKeys lists the keys of cmd when its command takes numkeys
// (known false when it does not, or numkeys is no literal count).
func movableKeys(cmd []string) (keys []string, known bool) {
	nk, ok := numKeysAt[strings.ToLower(cmd[0])]
	if !ok || nk.at >= len(cmd) {
		return nil, false
	}
	n, err := strconv.Atoi(cmd[nk.at])
	if err != nil || n < 0 || nk.at+n >= len(cmd) {
		return nil, false
	}
	if nk.dest {
		keys = append(keys, cmd[1])
	}
	return append(keys, cmd[nk.at+1:nk.at+1+n]...), true
}

// keysOf lists cmd's keys from infos (a server's COMMAND INFO, or
// staticKeyPos), the numkeys commands' from their arguments. A command
// that infos does not know, or whose keys cannot be told from its
// template, gives none: it is left to the server.
func keysOf(infos map[string]commandKeys, cmd []string) []string {
	if len(cmd) == 0 {
		return nil
	}
	if keys, ok := movableKeys(cmd); ok {
		return keys
	}
	return infos[strings.ToLower(cmd[0])].of(cmd)
}

// redisSchema checks the redis part of a target (clientSchema) and, in
// cluster mode, that each custom op's keys can share one hash slot.
type redisSchema struct {
	targets.ClientSchema[ClientConfig]
}

// CheckScenario refuses, in cluster mode, every custom op whose keys
// (by staticKeyPos) can hash to different slots, as Prepare would with
// the server's key positions: validate says it, for each op at once.
func (s redisSchema) CheckScenario(sc *scenarios.Scenario) []scenarios.FieldError {
	c, err := s.Decode(sc.Target)
	if err != nil || c.Mode != ModeCluster {
		return nil
	}
	var out []scenarios.FieldError
	names := slices.Sorted(maps.Keys(sc.Ops))
	for _, name := range names {
		op := sc.Ops[name]
		if op == nil {
			continue
		}
		f, _ := op.Form(resp.Family.Name)
		rt, ok := f.(*resp.Template)
		if !ok {
			continue
		}
		if a, b, bad := resp.SlotConflict(sc, templateKeys(staticKeyPos, rt)); bad {
			out = append(out, scenarios.FieldError{Path: "ops." + name + ".redis", Msg: resp.CrossSlotError(name, a, b).Error()})
		}
	}
	return out
}
