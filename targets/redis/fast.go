package redis

import (
	"context"
	"strconv"
	"time"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// The fast path (client.protocol fast, the default on a standalone
// server) sends the hot ops over soakd's own connections (conn.go): the
// commands of a whole batch are encoded into the connection's reused
// buffer and written at once, and replies are parsed into reused buffers,
// so an op costs no allocation. It sends the same commands in the same
// order as the go-redis path, reads their replies the same way (nil GET
// or pop: a miss; empty HGETALL: not found; the first error in go-redis's
// order) and stamps each op's End when its last reply arrives. Ops it
// does not carry (scan, rmw, search, ping_inline, and any op while a
// search mode stores records as documents) go through go-redis.

// fastOp reports whether op goes over the fast path.
func (t *Target) fastOp(op scenarios.Op) bool {
	if op.IsCustom() {
		return t.fast && t.customOf(op) != nil
	}
	if !t.fast || t.search.mode != searchNone {
		return false
	}
	switch op {
	case scenarios.OpGet, scenarios.OpSet, scenarios.OpRead, scenarios.OpUpdate, scenarios.OpInsert,
		scenarios.OpDelete, scenarios.OpDel, scenarios.OpHSet, scenarios.OpPing, scenarios.OpIncr,
		scenarios.OpLPush, scenarios.OpRPush, scenarios.OpLPop, scenarios.OpRPop, scenarios.OpSAdd,
		scenarios.OpSPop, scenarios.OpZAdd, scenarios.OpZPopMin, scenarios.OpLRange100,
		scenarios.OpLRange300, scenarios.OpLRange500, scenarios.OpLRange600, scenarios.OpMSet:
		return true
	}
	return false
}

// fastBatch reports whether every op of reqs goes over the fast path.
func (t *Target) fastBatch(reqs []*targets.Request) bool {
	for _, r := range reqs {
		if !t.fastOp(r.Op) {
			return false
		}
	}
	return true
}

// fastDo runs reqs (every one a fastOp) as one pipeline on one of
// soakd's own connections and puts each op's outcome in errs. With stamp
// set each op's End is when its last reply arrived.
func (t *Target) fastDo(ctx context.Context, reqs []*targets.Request, errs []error, stamp bool) {
	c, err := t.own.get(ctx)
	if err != nil {
		for i := range errs {
			errs[i] = err
		}
		return
	}
	c.out = c.out[:0]
	for _, r := range reqs {
		if co := t.customOf(r.Op); co != nil {
			c.out = appendCustom(c.out, co, r)
			continue
		}
		c.out = appendOp(c.out, r)
	}
	if err := t.own.send(ctx, c); err != nil {
		t.own.put(c, true)
		for i := range errs {
			errs[i] = err
		}
		return
	}
	for i, r := range reqs {
		var first, second error
		co := t.customOf(r.Op)
		n := opCommands(r.Op)
		if co != nil {
			n = co.commands()
		}
		for k := 0; k < n; k++ {
			srvErr, ioErr := c.next()
			if ioErr != nil {
				t.own.put(c, true)
				for j := i; j < len(reqs); j++ {
					errs[j] = ioErr
				}
				return
			}
			if k == 0 {
				first = srvErr
			} else if second == nil {
				second = srvErr
			}
		}
		if co != nil {
			errs[i] = customOutcome(co, c, first, second)
		} else {
			errs[i] = outcome(r.Op, c, first, second)
		}
		if stamp {
			r.End = time.Now()
		}
	}
	t.own.put(c, false)
}

// opCommands is how many commands appendOp sends for op.
func opCommands(op scenarios.Op) int {
	if op == scenarios.OpInsert || op == scenarios.OpDelete {
		return 2
	}
	return 1
}

// outcome is an op's result from its replies: first and second are the
// server's error replies to its commands, c holds its last reply. Two
// command ops report the second command's error first, as go-redis's
// path checks HSET before the index's ZADD (insert) and DEL before ZREM
// (delete).
func outcome(op scenarios.Op, c *conn, first, second error) error {
	if second != nil {
		return second
	}
	if first != nil {
		return first
	}
	switch op {
	case scenarios.OpGet, scenarios.OpLPop, scenarios.OpRPop, scenarios.OpSPop:
		if c.kind == kindNil {
			return targets.ErrMiss
		}
	case scenarios.OpZPopMin:
		if c.kind == kindNil || (c.kind == kindArray && c.n == 0) {
			return targets.ErrMiss
		}
	case scenarios.OpRead:
		if c.kind == kindNil || (c.kind == kindArray && c.n == 0) {
			return targets.ErrNotFound
		}
	}
	return nil
}

// appendOp appends the commands of r (a fastOp) to b: the same commands
// build queues on go-redis, in the same order.
func appendOp(b []byte, r *targets.Request) []byte {
	switch r.Op {
	case scenarios.OpGet:
		return appendBulk(appendBulkString(appendHeader(b, 2), "GET"), r.Key)
	case scenarios.OpSet:
		b = appendBulk(appendBulkString(appendHeader(b, 3), "SET"), r.Key)
		return appendBulk(b, value(r))
	case scenarios.OpRead:
		return appendBulk(appendBulkString(appendHeader(b, 2), "HGETALL"), r.Key)
	case scenarios.OpUpdate:
		return appendHSet(b, r.Key, r.Fields)
	case scenarios.OpInsert:
		b = appendBulkString(appendBulkString(appendHeader(b, 4), "ZADD"), IndexKey)
		b = appendBulk(appendBulkInt(b, r.KeyNum), r.Key)
		return appendHSet(b, r.Key, r.Fields)
	case scenarios.OpDelete:
		b = appendBulk(appendBulkString(appendBulkString(appendHeader(b, 3), "ZREM"), IndexKey), r.Key)
		return appendBulk(appendBulkString(appendHeader(b, 2), "DEL"), r.Key)
	case scenarios.OpDel:
		return appendBulk(appendBulkString(appendHeader(b, 2), "DEL"), r.Key)
	case scenarios.OpHSet:
		b = appendBulkString(appendBulkString(appendHeader(b, 4), "HSET"), benchHash)
		return appendBulk(appendBulkPrefixed(b, "element:", r.KeyNum), value(r))
	case scenarios.OpPing:
		return appendBulkString(appendHeader(b, 1), "PING")
	case scenarios.OpIncr:
		return appendBulkPrefixed(appendBulkString(appendHeader(b, 2), "INCR"), benchCounter, r.KeyNum)
	case scenarios.OpLPush:
		return appendBulk(appendBulkString(appendBulkString(appendHeader(b, 3), "LPUSH"), benchList), value(r))
	case scenarios.OpRPush:
		return appendBulk(appendBulkString(appendBulkString(appendHeader(b, 3), "RPUSH"), benchList), value(r))
	case scenarios.OpLPop:
		return appendBulkString(appendBulkString(appendHeader(b, 2), "LPOP"), benchList)
	case scenarios.OpRPop:
		return appendBulkString(appendBulkString(appendHeader(b, 2), "RPOP"), benchList)
	case scenarios.OpSAdd:
		return appendBulkPrefixed(appendBulkString(appendBulkString(appendHeader(b, 3), "SADD"), benchSet), "element:", r.KeyNum)
	case scenarios.OpSPop:
		return appendBulkString(appendBulkString(appendHeader(b, 2), "SPOP"), benchSet)
	case scenarios.OpZAdd:
		b = appendBulkString(appendBulkString(appendHeader(b, 4), "ZADD"), benchZSet)
		return appendBulkPrefixed(appendBulkInt(b, r.KeyNum), "element:", r.KeyNum)
	case scenarios.OpZPopMin:
		return appendBulkString(appendBulkString(appendHeader(b, 2), "ZPOPMIN"), benchZSet)
	case scenarios.OpLRange100:
		return appendLRange(b, 99)
	case scenarios.OpLRange300:
		return appendLRange(b, 299)
	case scenarios.OpLRange500:
		return appendLRange(b, 499)
	case scenarios.OpLRange600:
		return appendLRange(b, 599)
	case scenarios.OpMSet:
		// redis-benchmark's MSET sets 10 keys (standalone: no hash tag).
		b = appendBulkString(appendHeader(b, 21), "MSET")
		v := value(r)
		for i := 0; i < 10; i++ {
			b = append(b, '$')
			b = strconv.AppendInt(b, int64(len(r.Key)+2), 10)
			b = append(b, '\r', '\n')
			b = append(append(append(b, r.Key...), ':', byte('0'+i)), '\r', '\n')
			b = appendBulk(b, v)
		}
		return b
	}
	panic("redis fast path: op " + string(r.Op) + " is not a fast op")
}

// appendHSet appends HSET key f1 v1 ...; no fields means field0 with an
// empty value, as the go-redis path sends.
func appendHSet(b, key []byte, fs []targets.Field) []byte {
	if len(fs) == 0 {
		b = appendBulk(appendBulkString(appendHeader(b, 4), "HSET"), key)
		return appendBulk(appendBulkString(b, scenarios.FieldName(0)), nil)
	}
	b = appendBulk(appendBulkString(appendHeader(b, 2+2*len(fs)), "HSET"), key)
	for _, f := range fs {
		b = appendBulk(appendBulkString(b, f.Name), f.Value)
	}
	return b
}

func appendLRange(b []byte, stop int64) []byte {
	b = appendBulkString(appendBulkString(appendHeader(b, 4), "LRANGE"), benchList)
	return appendBulkInt(appendBulkString(b, "0"), stop)
}
