// Package cqltest is a small CQL native protocol v4 server for tests: it
// implements exactly the frames gocql sends (STARTUP, AUTH_RESPONSE,
// OPTIONS, REGISTER, QUERY, PREPARE, EXECUTE, BATCH) with result shapes
// from the protocol spec (native_protocol_v4.spec, sections 4.1 and 4.2),
// answers system.local/system.peers/system_schema minimally so the driver
// connects, serves system_views.thread_pools and system_views.clients
// when SetViews says so (otherwise, as on Cassandra 3 and ScyllaDB, the
// keyspace does not exist), keeps tables in memory and records every request so tests can
// assert on consistency levels, paging state and prepared ids.
//
// It understands the statement shapes soakd's cql adapter sends (DDL,
// INSERT, UPDATE, counter UPDATE, SELECT by key, token scan, DELETE),
// nothing more. A token scan orders rows by key, not by Murmur3 token.
package cqltest

import (
	"bufio"
	"bytes"
	"crypto/md5"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Opcodes (spec section 2.4).
const (
	OpError        = 0x00
	OpStartup      = 0x01
	OpReady        = 0x02
	OpAuthenticate = 0x03
	OpOptions      = 0x05
	OpSupported    = 0x06
	OpQuery        = 0x07
	OpResult       = 0x08
	OpPrepare      = 0x09
	OpExecute      = 0x0A
	OpRegister     = 0x0B
	OpBatch        = 0x0D
	OpAuthResponse = 0x0F
	OpAuthSuccess  = 0x10
)

// Error codes (spec section 9) the tests inject.
const (
	ErrServer       = 0x0000
	ErrBadCreds     = 0x0100
	ErrUnavailable  = 0x1000
	ErrOverloaded   = 0x1001
	ErrWriteTimeout = 0x1100
	ErrReadTimeout  = 0x1200
	ErrWriteFailure = 0x1500
	ErrSyntax       = 0x2000
	ErrInvalid      = 0x2200
	ErrUnprepared   = 0x2500
)

// Request is one request frame as the server decoded it.
type Request struct {
	Opcode      byte
	Stream      int16
	Stmt        string // QUERY and PREPARE text; EXECUTE: the prepared statement's text
	PreparedID  []byte // EXECUTE
	Consistency uint16
	Flags       byte
	Values      [][]byte
	PageSize    int32 // -1 when absent
	PagingState []byte
	SkipMeta    bool
	Options     map[string]string // STARTUP
	Events      []string          // REGISTER
	BatchType   byte
	Batch       []BatchStmt
}

// BatchStmt is one statement of a BATCH.
type BatchStmt struct {
	Stmt       string
	PreparedID []byte
	Values     [][]byte
}

// Error is a CQL error the server answers with (see Server.Fail).
type Error struct {
	Code        int
	Msg         string
	Consistency uint16
}

func (e *Error) Error() string { return fmt.Sprintf("cql error 0x%04x: %s", e.Code, e.Msg) }

// Server is the test server. Create it with Start.
type Server struct {
	ln net.Listener

	self  Node
	peers []Node
	// cluster is every node of a StartCluster cluster: DDL run on one
	// is run on all (the schema is the cluster's, rows are each node's).
	cluster []*Server

	mu        sync.Mutex
	fail      func(r *Request) *Error
	user      string
	password  string
	reqs      []Request
	keyspaces map[string]string
	tables    map[string]*table // "ks.t"
	prepared  map[string]string // id -> statement
	views     *Views            // nil: no system_views keyspace
	conns     map[net.Conn]bool
	closed    bool
	wg        sync.WaitGroup
}

type table struct {
	cols  []string
	types map[string]colType
	pk    string
	rows  map[string]map[string][]byte
}

// Start listens on 127.0.0.1 on a free port.
func Start() (*Server, error) {
	return StartTLS(nil)
}

// StartTLS is Start with TLS on every connection when cfg is not nil.
func StartTLS(cfg *tls.Config) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	if cfg != nil {
		ln = tls.NewListener(ln, cfg)
	}
	return serve(ln, defaultNode()), nil
}

func serve(ln net.Listener, self Node) *Server {
	s := newServer(ln, self)
	s.wg.Add(1)
	go s.accept()
	return s
}

func newServer(ln net.Listener, self Node) *Server {
	return &Server{ln: ln, self: self, keyspaces: map[string]string{}, tables: map[string]*table{}, prepared: map[string]string{}, conns: map[net.Conn]bool{}}
}

// StartCluster starts n nodes on 127.0.0.1, 127.0.0.2, ... (loopback
// addresses) sharing one port, as a CQL cluster's nodes share the native
// port; each lists the others in system.peers and owns an equal share of
// the Murmur3 token ring (node i's token is -2^63 + i*2^64/n). Each node
// keeps its own tables: a row lives where the driver sent it.
func StartCluster(n int) ([]*Server, error) {
	var lastErr error
	for try := 0; try < 20; try++ {
		first, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		port := first.Addr().(*net.TCPAddr).Port
		lns := []net.Listener{first}
		for i := 1; i < n; i++ {
			ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.%d:%d", i+1, port))
			if err != nil {
				lastErr = err
				break
			}
			lns = append(lns, ln)
		}
		if len(lns) < n {
			for _, ln := range lns {
				ln.Close()
			}
			continue
		}
		nodes := make([]Node, n)
		step := new(big.Int).Div(new(big.Int).Lsh(big.NewInt(1), 64), big.NewInt(int64(n)))
		for i := range nodes {
			tok := new(big.Int).Add(new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 63)), new(big.Int).Mul(step, big.NewInt(int64(i))))
			nodes[i] = Node{IP: net.IPv4(127, 0, 0, byte(i+1)), Tokens: []string{tok.String()}}
			nodes[i].HostID = defaultNode().HostID
			nodes[i].HostID[15] = byte(i)
		}
		out := make([]*Server, n)
		for i := range out {
			out[i] = newServer(lns[i], nodes[i])
			for j := range nodes {
				if j != i {
					out[i].peers = append(out[i].peers, nodes[j])
				}
			}
		}
		for _, s := range out {
			s.cluster = out
			s.wg.Add(1)
			go s.accept()
		}
		return out, nil
	}
	return nil, fmt.Errorf("no port free on every loopback address: %v", lastErr)
}

// HostID is this node's host_id as the driver prints it.
func (s *Server) HostID() string {
	h := s.self.HostID
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

// SetFail sets a function asked about each QUERY, EXECUTE and BATCH of
// a user table (not system tables); a non-nil error is sent instead.
func (s *Server) SetFail(f func(r *Request) *Error) {
	s.mu.Lock()
	s.fail = f
	s.mu.Unlock()
}

// ThreadPool is one row of system_views.thread_pools.
type ThreadPool struct {
	Name                    string // e.g. "ReadStage", "Native-Transport-Requests"
	Active, ActiveLimit     int32
	Pending                 int32
	Blocked, BlockedAllTime int64
	Completed               int64
}

// Views is what the server serves in Cassandra 4's system_views
// keyspace: the rows of thread_pools and a number of rows of clients.
type Views struct {
	ThreadPools []ThreadPool
	Clients     int
}

// SetViews makes the server a Cassandra 4.0+ with the system_views
// virtual tables thread_pools and clients (other system_views tables
// are unconfigured). By default (or with nil) there is no system_views
// keyspace, as on Cassandra 3 and ScyllaDB: statements naming it fail
// with Invalid "keyspace system_views does not exist".
func (s *Server) SetViews(v *Views) {
	s.mu.Lock()
	s.views = v
	s.mu.Unlock()
}

// SetAuth turns on PasswordAuthenticator for new connections.
func (s *Server) SetAuth(user, password string) {
	s.mu.Lock()
	s.user, s.password = user, password
	s.mu.Unlock()
}

// Addr is host:port.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the server and drops every connection.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.ln.Close()
	s.wg.Wait()
}

// Requests returns a copy of the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Rows returns the number of rows in keyspace.table.
func (s *Server) Rows(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.tables[name]; t != nil {
		return len(t.rows)
	}
	return 0
}

// Row returns a copy of one row's columns (nil when absent).
func (s *Server) Row(name, key string) map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tables[name]
	if t == nil || t.rows[key] == nil {
		return nil
	}
	out := map[string]string{}
	for k, v := range t.rows[key] {
		out[k] = string(v)
	}
	return out
}

// Exec runs a statement without bound values as a QUERY would: a test
// sets up its schema with it (CREATE KEYSPACE, CREATE TABLE).
func (s *Server) Exec(stmt string) error {
	if _, e := s.run(stmt, nil, &Request{}); e != nil {
		return e
	}
	return nil
}

// Keyspace returns the replication a keyspace was created with.
func (s *Server) Keyspace(name string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.keyspaces[name]
	return r, ok
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.Close()
			return
		}
		s.conns[c] = true
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.serve(c)
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
			c.Close()
		}()
	}
}

// frame header (spec section 2): version, flags, stream, opcode, length.
const headerLen = 9

func (s *Server) serve(c net.Conn) {
	br := bufio.NewReader(c)
	var hdr [headerLen]byte
	s.mu.Lock()
	authed := s.password == ""
	s.mu.Unlock()
	for {
		if _, err := io.ReadFull(br, hdr[:]); err != nil {
			return
		}
		if hdr[0]&0x7f != 4 {
			// Protocol negotiation: answer in the version asked with a
			// protocol error, as Cassandra does.
			body := errBody(&Error{Code: 0x000A, Msg: "Invalid or unsupported protocol version; supported versions are (4/v4)"})
			writeFrame(c, hdr[0]&0x7f, int16(binary.BigEndian.Uint16(hdr[2:4])), OpError, body)
			return
		}
		n := binary.BigEndian.Uint32(hdr[5:9])
		if n > 256<<20 {
			return
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(br, body); err != nil {
			return
		}
		stream := int16(binary.BigEndian.Uint16(hdr[2:4]))
		op, resp := s.handle(hdr[4], stream, body, &authed)
		if err := writeFrame(c, 4, stream, op, resp); err != nil {
			return
		}
	}
}

func writeFrame(w io.Writer, version byte, stream int16, op byte, body []byte) error {
	b := make([]byte, headerLen, headerLen+len(body))
	b[0] = 0x80 | version
	binary.BigEndian.PutUint16(b[2:4], uint16(stream))
	b[4] = op
	binary.BigEndian.PutUint32(b[5:9], uint32(len(body)))
	_, err := w.Write(append(b, body...))
	return err
}

func (s *Server) record(r Request) {
	s.mu.Lock()
	s.reqs = append(s.reqs, r)
	s.mu.Unlock()
}

func (s *Server) handle(op byte, stream int16, body []byte, authed *bool) (byte, []byte) {
	rd := &reader{b: body}
	req := Request{Opcode: op, Stream: stream, PageSize: -1}
	defer func() { s.record(req) }()
	switch op {
	case OpOptions:
		var w writer
		w.short(2)
		w.string("CQL_VERSION")
		w.stringList([]string{"3.4.5"})
		w.string("COMPRESSION")
		w.stringList(nil)
		return OpSupported, w.b
	case OpStartup:
		req.Options = rd.stringMap()
		if !*authed {
			var w writer
			w.string("org.apache.cassandra.auth.PasswordAuthenticator")
			return OpAuthenticate, w.b
		}
		return OpReady, nil
	case OpAuthResponse:
		tok := rd.bytes()
		parts := bytes.Split(tok, []byte{0})
		s.mu.Lock()
		ok := len(parts) == 3 && string(parts[1]) == s.user && string(parts[2]) == s.password
		s.mu.Unlock()
		if ok {
			*authed = true
			var w writer
			w.int(-1)
			return OpAuthSuccess, w.b
		}
		return OpError, errBody(&Error{Code: ErrBadCreds, Msg: "Provided username and/or password are incorrect"})
	case OpRegister:
		req.Events = rd.stringList()
		return OpReady, nil
	}
	if !*authed {
		return OpError, errBody(&Error{Code: 0x000A, Msg: "not authenticated"})
	}
	switch op {
	case OpQuery:
		req.Stmt = rd.longString()
		s.params(rd, &req)
	case OpPrepare:
		req.Stmt = rd.longString()
		if rd.err != nil {
			return OpError, errBody(&Error{Code: 0x000A, Msg: rd.err.Error()})
		}
		return s.prepare(req.Stmt)
	case OpExecute:
		req.PreparedID = rd.shortBytes()
		s.mu.Lock()
		stmt, ok := s.prepared[string(req.PreparedID)]
		s.mu.Unlock()
		if !ok {
			var w writer
			w.int(ErrUnprepared)
			w.string("unknown prepared id")
			w.shortBytes(req.PreparedID)
			return OpError, w.b
		}
		req.Stmt = stmt
		s.params(rd, &req)
	case OpBatch:
		req.BatchType = rd.byte()
		n := int(rd.short())
		for i := 0; i < n && rd.err == nil; i++ {
			var bs BatchStmt
			if rd.byte() == 0 {
				bs.Stmt = rd.longString()
			} else {
				bs.PreparedID = rd.shortBytes()
				s.mu.Lock()
				bs.Stmt = s.prepared[string(bs.PreparedID)]
				s.mu.Unlock()
			}
			nv := int(rd.short())
			for j := 0; j < nv; j++ {
				bs.Values = append(bs.Values, rd.bytes())
			}
			req.Batch = append(req.Batch, bs)
		}
		req.Consistency = rd.short()
		req.Flags = rd.byte()
	default:
		return OpError, errBody(&Error{Code: 0x000A, Msg: fmt.Sprintf("opcode 0x%02x is not handled by the test server", op)})
	}
	if rd.err != nil {
		return OpError, errBody(&Error{Code: 0x000A, Msg: rd.err.Error()})
	}
	s.mu.Lock()
	fail := s.fail
	s.mu.Unlock()
	if fail != nil && !isSystem(req.Stmt) {
		if e := fail(&req); e != nil {
			return OpError, errBody(e)
		}
	}
	if op == OpBatch {
		for _, bs := range req.Batch {
			if _, e := s.run(bs.Stmt, bs.Values, &req); e != nil {
				return OpError, errBody(e)
			}
		}
		return OpResult, voidResult()
	}
	res, e := s.run(req.Stmt, req.Values, &req)
	if e != nil {
		return OpError, errBody(e)
	}
	if strings.HasPrefix(req.Stmt, "CREATE ") {
		for _, o := range s.cluster {
			if o != s {
				o.run(req.Stmt, nil, &Request{})
			}
		}
	}
	return OpResult, res
}

func isSystem(stmt string) bool {
	return strings.Contains(stmt, "system.") || strings.Contains(stmt, "system_schema.") || isViews(stmt)
}

func isViews(stmt string) bool { return strings.Contains(strings.ToLower(stmt), "system_views.") }

// params reads <query_parameters> (spec 4.1.4).
func (s *Server) params(rd *reader, req *Request) {
	req.Consistency = rd.short()
	req.Flags = rd.byte()
	if req.Flags&0x01 != 0 {
		n := int(rd.short())
		for i := 0; i < n; i++ {
			if req.Flags&0x40 != 0 {
				rd.string()
			}
			req.Values = append(req.Values, rd.bytes())
		}
	}
	req.SkipMeta = req.Flags&0x02 != 0
	if req.Flags&0x04 != 0 {
		req.PageSize = rd.int()
	}
	if req.Flags&0x08 != 0 {
		req.PagingState = rd.bytes()
	}
}

func errBody(e *Error) []byte {
	var w writer
	w.int(int32(e.Code))
	w.string(e.Msg)
	switch e.Code {
	case ErrUnavailable:
		w.short(e.Consistency)
		w.int(2)
		w.int(1)
	case ErrWriteTimeout:
		w.short(e.Consistency)
		w.int(0)
		w.int(1)
		w.string("SIMPLE")
	case ErrReadTimeout:
		w.short(e.Consistency)
		w.int(0)
		w.int(1)
		w.byte(0)
	case ErrWriteFailure:
		w.short(e.Consistency)
		w.int(0)
		w.int(1)
		w.int(1)
		w.string("SIMPLE")
	}
	return w.b
}

// Result kinds (spec 4.2.5).
const (
	resVoid         = 1
	resRows         = 2
	resSetKeyspace  = 3
	resPrepared     = 4
	resSchemaChange = 5
)

func voidResult() []byte {
	var w writer
	w.int(resVoid)
	return w.b
}

type colType uint16

const (
	tAscii     colType = 0x0001
	tBigint    colType = 0x0002
	tBlob      colType = 0x0003
	tBoolean   colType = 0x0004
	tCounter   colType = 0x0005
	tDecimal   colType = 0x0006
	tDouble    colType = 0x0007
	tFloat     colType = 0x0008
	tInt       colType = 0x0009
	tTimestamp colType = 0x000B
	tUUID      colType = 0x000C
	tVarchar   colType = 0x000D
	tVarint    colType = 0x000E
	tTimeUUID  colType = 0x000F
	tInet      colType = 0x0010
	tSmallint  colType = 0x0013
	tTinyint   colType = 0x0014
	tMap       colType = 0x0021
	tSet       colType = 0x0022
)

// columnTypes are the types a CREATE TABLE of the test server may use.
var columnTypes = map[string]colType{
	"text": tVarchar, "varchar": tVarchar, "ascii": tAscii, "counter": tCounter,
	"int": tInt, "bigint": tBigint, "smallint": tSmallint, "tinyint": tTinyint, "varint": tVarint,
	"float": tFloat, "double": tDouble, "decimal": tDecimal, "boolean": tBoolean,
	"uuid": tUUID, "timeuuid": tTimeUUID, "blob": tBlob, "timestamp": tTimestamp,
}

// fixedSize is the byte length of a value of a fixed-size type (0: any).
var fixedSize = map[colType]int{
	tInt: 4, tBigint: 8, tCounter: 8, tTimestamp: 8, tSmallint: 2, tTinyint: 1,
	tFloat: 4, tDouble: 8, tBoolean: 1, tUUID: 16, tTimeUUID: 16,
}

// checkValue refuses a bound value of the wrong size for its column, as
// Cassandra does ("Expected 4 or 0 byte int (3)"); null (nil) and empty
// values pass.
func checkValue(c col, v []byte) *Error {
	if n, ok := fixedSize[c.typ]; ok && len(v) != 0 && len(v) != n {
		return invalid("Expected %d or 0 byte value for column %s (%d)", n, c.name, len(v))
	}
	if c.typ == tDecimal && len(v) != 0 && len(v) < 5 {
		return invalid("A decimal for column %s needs a 4-byte scale and an unscaled value (%d bytes)", c.name, len(v))
	}
	return nil
}

// keyType is the type of column name of t, text when t does not have it.
func keyType(t *table, name string) colType {
	if typ, ok := t.types[name]; ok {
		return typ
	}
	return tVarchar
}

type col struct {
	ks, table, name string
	typ             colType
}

func writeType(w *writer, t colType) {
	w.short(uint16(t))
	switch t {
	case tSet:
		w.short(uint16(tVarchar))
	case tMap:
		w.short(uint16(tVarchar))
		w.short(uint16(tVarchar))
	}
}

// writeColSpecs writes <flags><columns_count>[<paging_state>] and, unless
// noMeta, the column specs with a global table spec when all columns are
// of one table (spec 4.2.5.2).
func writeMeta(w *writer, cols []col, paging []byte, noMeta bool) {
	flags := int32(0)
	global := len(cols) > 0
	for _, c := range cols {
		if c.ks != cols[0].ks || c.table != cols[0].table {
			global = false
		}
	}
	if global && !noMeta {
		flags |= 0x01
	}
	if paging != nil {
		flags |= 0x02
	}
	if noMeta {
		flags |= 0x04
	}
	w.int(flags)
	w.int(int32(len(cols)))
	if paging != nil {
		w.bytes(paging)
	}
	if noMeta {
		return
	}
	if global {
		w.string(cols[0].ks)
		w.string(cols[0].table)
	}
	for _, c := range cols {
		if !global {
			w.string(c.ks)
			w.string(c.table)
		}
		w.string(c.name)
		writeType(w, c.typ)
	}
}

func rowsResult(cols []col, rows [][][]byte, paging []byte, noMeta bool) []byte {
	var w writer
	w.int(resRows)
	writeMeta(&w, cols, paging, noMeta)
	w.int(int32(len(rows)))
	for _, r := range rows {
		for _, v := range r {
			w.bytes(v)
		}
	}
	return w.b
}

// Statement shapes.
var (
	reCreateKS    = regexp.MustCompile(`^CREATE KEYSPACE IF NOT EXISTS (\w+) WITH replication = (\{.*\})$`)
	reCreateTable = regexp.MustCompile(`^CREATE TABLE IF NOT EXISTS (\w+)\.(\w+) \((.*)\)$`)
	reInsert      = regexp.MustCompile(`^INSERT INTO (\w+)\.(\w+) \(([^)]*)\) VALUES \(([^)]*)\)$`)
	reCounter     = regexp.MustCompile(`^UPDATE (\w+)\.(\w+) SET (\w+) = (\w+) \+ 1 WHERE (\w+) = \?$`)
	reUpdate      = regexp.MustCompile(`^UPDATE (\w+)\.(\w+) SET (.*) WHERE (\w+) = \?$`)
	reScan        = regexp.MustCompile(`^SELECT (.*) FROM (\w+)\.(\w+) WHERE token\((\w+)\) >= token\(\?\) LIMIT \?$`)
	reSelectKey   = regexp.MustCompile(`^SELECT (.*) FROM (\w+)\.(\w+) WHERE (\w+) = \?$`)
	reDelete      = regexp.MustCompile(`^DELETE FROM (\w+)\.(\w+) WHERE (\w+) = \?$`)
	reLocal       = regexp.MustCompile(`^SELECT (.*) FROM system\.local WHERE key ?= ?'local'$`)
	rePeers       = regexp.MustCompile(`^SELECT (.*) FROM system\.peers(_v2)?$`)
	reKSMeta      = regexp.MustCompile(`(?s)^\s*SELECT durable_writes, replication\s+FROM system_schema\.keyspaces\s+WHERE keyspace_name = \?\s*$`)
	reUse         = regexp.MustCompile(`^USE "?(\w+)"?$`)
	reViews       = regexp.MustCompile(`(?i)^SELECT (.*) FROM system_views\.(\w+)$`)
	reSystemOther = regexp.MustCompile(`(?is)\bFROM\s+system(_schema|_views|_traces)?\.`)
)

// Node is one node's identity in system.local and its peers' system.peers.
type Node struct {
	IP     net.IP
	HostID [16]byte
	Tokens []string
}

var schemaVersion = []byte{0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x47, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff}

// DefaultHostID is the host_id of a server made by Start.
const DefaultHostID = "5e1f2a3b-4c5d-4e6f-8091-a2b3c4d5e6f7"

func defaultNode() Node {
	return Node{IP: net.IPv4(127, 0, 0, 1), HostID: [16]byte{0x5e, 0x1f, 0x2a, 0x3b, 0x4c, 0x5d, 0x4e, 0x6f, 0x80, 0x91, 0xa2, 0xb3, 0xc4, 0xd5, 0xe6, 0xf7}, Tokens: []string{"-9223372036854775808"}}
}

type sysCol struct {
	name string
	typ  colType
	val  []byte
}

// localRow is system.local's one row (callers hold s.mu).
func (s *Server) localRow() []sysCol {
	ip := s.self.IP.To4()
	return []sysCol{
		{"key", tVarchar, []byte("local")},
		{"bootstrapped", tVarchar, []byte("COMPLETED")},
		{"broadcast_address", tInet, ip},
		{"cluster_name", tVarchar, []byte("soakd test cluster")},
		{"cql_version", tVarchar, []byte("3.4.5")},
		{"data_center", tVarchar, []byte("datacenter1")},
		{"host_id", tUUID, s.self.HostID[:]},
		{"listen_address", tInet, ip},
		{"native_protocol_version", tVarchar, []byte("4")},
		{"partitioner", tVarchar, []byte("org.apache.cassandra.dht.Murmur3Partitioner")},
		{"rack", tVarchar, []byte("rack1")},
		{"release_version", tVarchar, []byte("3.0.8")},
		{"rpc_address", tInet, ip},
		{"schema_version", tUUID, schemaVersion},
		{"tokens", tSet, setOf(s.self.Tokens...)},
	}
}

// peerRow is a peer's row of system.peers.
func peerRow(n Node) []sysCol {
	ip := n.IP.To4()
	return []sysCol{
		{"peer", tInet, ip},
		{"data_center", tVarchar, []byte("datacenter1")},
		{"host_id", tUUID, n.HostID[:]},
		{"rack", tVarchar, []byte("rack1")},
		{"release_version", tVarchar, []byte("3.0.8")},
		{"rpc_address", tInet, ip},
		{"schema_version", tUUID, schemaVersion},
		{"tokens", tSet, setOf(n.Tokens...)},
	}
}

// project picks the columns list names ("*" = all) from a system row.
func projectSys(table, list string, row []sysCol) ([]col, [][]byte, *Error) {
	return projectKS("system", table, list, row)
}

func projectKS(ks, table, list string, row []sysCol) ([]col, [][]byte, *Error) {
	var cols []col
	var vals [][]byte
	for _, n := range splitCols(list) {
		found := false
		for _, c := range row {
			if n == "*" || c.name == n {
				cols = append(cols, col{ks, table, c.name, c.typ})
				vals = append(vals, c.val)
				found = true
			}
		}
		if !found {
			return nil, nil, invalid("undefined column name %s", n)
		}
	}
	return cols, vals, nil
}

// systemRows answers system.local (its one row, projected) and
// system.peers (a row per other node); system.peers_v2 does not exist,
// as on Cassandra 3 and Scylla. Callers hold s.mu.
func (s *Server) systemRows(stmt string) ([]col, [][][]byte, *Error) {
	if m := rePeers.FindStringSubmatch(stmt); m != nil {
		if m[2] != "" {
			return nil, nil, invalid("unconfigured table peers_v2")
		}
		cols, _, e := projectSys("peers", m[1], peerRow(defaultNode()))
		if e != nil {
			return nil, nil, e
		}
		var rows [][][]byte
		for _, p := range s.peers {
			_, vals, _ := projectSys("peers", m[1], peerRow(p))
			rows = append(rows, vals)
		}
		return cols, rows, nil
	}
	m := reLocal.FindStringSubmatch(stmt)
	cols, vals, e := projectSys("local", m[1], s.localRow())
	if e != nil {
		return nil, nil, e
	}
	return cols, [][][]byte{vals}, nil
}

func int32Of(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }
func int64Of(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }

// Column types of system_views.thread_pools and system_views.clients
// as Cassandra 4.0 declares them (partition key first).
func poolRow(p ThreadPool) []sysCol {
	return []sysCol{
		{"name", tVarchar, []byte(p.Name)},
		{"active_tasks", tInt, int32Of(p.Active)},
		{"active_tasks_limit", tInt, int32Of(p.ActiveLimit)},
		{"blocked_tasks", tBigint, int64Of(p.Blocked)},
		{"blocked_tasks_all_time", tBigint, int64Of(p.BlockedAllTime)},
		{"completed_tasks", tBigint, int64Of(p.Completed)},
		{"pending_tasks", tInt, int32Of(p.Pending)},
	}
}

func clientRow(i int) []sysCol {
	return []sysCol{
		{"address", tInet, net.IPv4(127, 0, 0, 1).To4()},
		{"port", tInt, int32Of(int32(50000 + i))},
		{"connection_stage", tVarchar, []byte("ready")},
		{"driver_name", tVarchar, []byte("gocql")},
		{"driver_version", tVarchar, []byte("v1.7.0")},
		{"hostname", tVarchar, []byte("localhost")},
		{"protocol_version", tInt, int32Of(4)},
		{"request_count", tBigint, int64Of(int64(i))},
		{"ssl_enabled", tBoolean, []byte{0}},
		{"username", tVarchar, []byte("anonymous")},
	}
}

// viewRows answers SELECT <cols> FROM system_views.<table> (no WHERE)
// when SetViews turned the keyspace on. Callers hold s.mu.
func (s *Server) viewRows(stmt string) ([]col, [][][]byte, *Error) {
	if s.views == nil {
		return nil, nil, invalid("keyspace system_views does not exist")
	}
	m := reViews.FindStringSubmatch(stmt)
	if m == nil {
		return nil, nil, &Error{Code: ErrSyntax, Msg: "the test server only serves SELECT <columns> FROM system_views.<table>"}
	}
	var rows [][]sysCol
	switch m[2] {
	case "thread_pools":
		rows = append(rows, poolRow(ThreadPool{}))
		for _, p := range s.views.ThreadPools {
			rows = append(rows, poolRow(p))
		}
	case "clients":
		rows = append(rows, clientRow(0))
		for i := 0; i < s.views.Clients; i++ {
			rows = append(rows, clientRow(i))
		}
	default:
		return nil, nil, invalid("unconfigured table %s", m[2])
	}
	// rows[0] gives the column specs of an empty result.
	cols, _, e := projectKS("system_views", m[2], m[1], rows[0])
	if e != nil {
		return nil, nil, e
	}
	var out [][][]byte
	for _, r := range rows[1:] {
		_, vals, _ := projectKS("system_views", m[2], m[1], r)
		out = append(out, vals)
	}
	return cols, out, nil
}

func setOf(vals ...string) []byte {
	var w writer
	w.int(int32(len(vals)))
	for _, v := range vals {
		w.bytes([]byte(v))
	}
	return w.b
}

func mapOf(kv map[string]string) []byte {
	keys := make([]string, 0, len(kv))
	for k := range kv {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var w writer
	w.int(int32(len(keys)))
	for _, k := range keys {
		w.bytes([]byte(k))
		w.bytes([]byte(kv[k]))
	}
	return w.b
}

func splitCols(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func invalid(format string, args ...any) *Error {
	return &Error{Code: ErrInvalid, Msg: fmt.Sprintf(format, args...)}
}

// markers returns the bind variables of a statement (name, type, pk
// index or -1) and its result columns, for PREPARE.
func (s *Server) markers(stmt string) (vars []col, pk []int, result []col, e *Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tab := func(ks, name string) (*table, *Error) {
		t := s.tables[ks+"."+name]
		if t == nil {
			return nil, invalid("unconfigured table %s", name)
		}
		return t, nil
	}
	switch {
	case reInsert.MatchString(stmt):
		m := reInsert.FindStringSubmatch(stmt)
		t, e := tab(m[1], m[2])
		if e != nil {
			return nil, nil, nil, e
		}
		for i, n := range splitCols(m[3]) {
			vars = append(vars, col{m[1], m[2], n, t.types[n]})
			if n == t.pk {
				pk = append(pk, i)
			}
		}
	case reCounter.MatchString(stmt):
		m := reCounter.FindStringSubmatch(stmt)
		if _, e := tab(m[1], m[2]); e != nil {
			return nil, nil, nil, e
		}
		vars = []col{{m[1], m[2], m[5], tVarchar}}
		pk = []int{0}
	case reUpdate.MatchString(stmt):
		m := reUpdate.FindStringSubmatch(stmt)
		t, e := tab(m[1], m[2])
		if e != nil {
			return nil, nil, nil, e
		}
		for _, a := range splitCols(m[3]) {
			n, _, _ := strings.Cut(a, " = ")
			vars = append(vars, col{m[1], m[2], n, t.types[n]})
		}
		vars = append(vars, col{m[1], m[2], m[4], keyType(t, m[4])})
		pk = []int{len(vars) - 1}
	case reScan.MatchString(stmt):
		m := reScan.FindStringSubmatch(stmt)
		t, e := tab(m[2], m[3])
		if e != nil {
			return nil, nil, nil, e
		}
		if result, e = project(m[2], m[3], t, m[1]); e != nil {
			return nil, nil, nil, e
		}
		vars = []col{{m[2], m[3], m[4], tVarchar}, {m[2], m[3], "[limit]", tInt}}
	case reLocal.MatchString(stmt), rePeers.MatchString(stmt):
		if result, _, e = s.systemRows(stmt); e != nil {
			return nil, nil, nil, e
		}
	case isViews(stmt):
		if result, _, e = s.viewRows(stmt); e != nil {
			return nil, nil, nil, e
		}
	case reKSMeta.MatchString(stmt):
		vars = []col{{"system_schema", "keyspaces", "keyspace_name", tVarchar}}
		pk = []int{0}
		result = []col{{"system_schema", "keyspaces", "durable_writes", tBoolean}, {"system_schema", "keyspaces", "replication", tMap}}
	case reSelectKey.MatchString(stmt):
		m := reSelectKey.FindStringSubmatch(stmt)
		t, e := tab(m[2], m[3])
		if e != nil {
			return nil, nil, nil, e
		}
		if result, e = project(m[2], m[3], t, m[1]); e != nil {
			return nil, nil, nil, e
		}
		vars = []col{{m[2], m[3], m[4], keyType(t, m[4])}}
		pk = []int{0}
	case reDelete.MatchString(stmt):
		m := reDelete.FindStringSubmatch(stmt)
		t, e := tab(m[1], m[2])
		if e != nil {
			return nil, nil, nil, e
		}
		vars = []col{{m[1], m[2], m[3], keyType(t, m[3])}}
		pk = []int{0}
	case reSystemOther.MatchString(stmt):
		// The driver's schema queries (tables, columns, views, types,
		// functions, aggregates of a keyspace): text markers, no rows.
		for i := 0; i < strings.Count(stmt, "?"); i++ {
			vars = append(vars, col{"system_schema", "any", "keyspace_name", tVarchar})
		}
	default:
		if strings.Contains(stmt, "?") {
			return nil, nil, nil, &Error{Code: ErrSyntax, Msg: "the test server cannot prepare: " + stmt}
		}
	}
	return vars, pk, result, nil
}

func (s *Server) prepare(stmt string) (byte, []byte) {
	vars, pk, result, e := s.markers(stmt)
	if e != nil {
		return OpError, errBody(e)
	}
	sum := md5.Sum([]byte(stmt))
	id := sum[:]
	s.mu.Lock()
	s.prepared[string(id)] = stmt
	s.mu.Unlock()
	var w writer
	w.int(resPrepared)
	w.shortBytes(id)
	// <metadata> (4.2.5.4): flags, columns_count, pk_count, pk_index..., specs.
	w.int(0)
	w.int(int32(len(vars)))
	w.int(int32(len(pk)))
	for _, i := range pk {
		w.short(uint16(i))
	}
	for _, v := range vars {
		w.string(v.ks)
		w.string(v.table)
		w.string(v.name)
		writeType(&w, v.typ)
	}
	// <result_metadata>
	writeMeta(&w, result, nil, false)
	return OpResult, w.b
}

// run executes a statement against the in-memory store.
func (s *Server) run(stmt string, vals [][]byte, req *Request) ([]byte, *Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	val := func(i int) []byte {
		if i < len(vals) {
			return vals[i]
		}
		return nil
	}
	switch {
	case reLocal.MatchString(stmt), rePeers.MatchString(stmt):
		cols, rows, e := s.systemRows(stmt)
		if e != nil {
			return nil, e
		}
		return rowsResult(cols, rows, nil, req.SkipMeta), nil
	case isViews(stmt):
		cols, rows, e := s.viewRows(stmt)
		if e != nil {
			return nil, e
		}
		return rowsResult(cols, rows, nil, req.SkipMeta), nil
	case reKSMeta.MatchString(stmt):
		cols := []col{{"system_schema", "keyspaces", "durable_writes", tBoolean}, {"system_schema", "keyspaces", "replication", tMap}}
		repl, ok := s.keyspaces[string(val(0))]
		if !ok {
			return rowsResult(cols, nil, nil, req.SkipMeta), nil
		}
		return rowsResult(cols, [][][]byte{{{1}, mapOf(parseReplication(repl))}}, nil, req.SkipMeta), nil
	case reSystemOther.MatchString(stmt):
		return rowsResult(nil, nil, nil, false), nil
	case reUse.MatchString(stmt):
		m := reUse.FindStringSubmatch(stmt)
		if _, ok := s.keyspaces[m[1]]; !ok {
			return nil, invalid("Keyspace '%s' does not exist", m[1])
		}
		var w writer
		w.int(resSetKeyspace)
		w.string(m[1])
		return w.b, nil
	case reCreateKS.MatchString(stmt):
		m := reCreateKS.FindStringSubmatch(stmt)
		if _, ok := s.keyspaces[m[1]]; !ok {
			s.keyspaces[m[1]] = m[2]
		}
		return schemaChange("KEYSPACE", m[1], ""), nil
	case reCreateTable.MatchString(stmt):
		m := reCreateTable.FindStringSubmatch(stmt)
		if _, ok := s.keyspaces[m[1]]; !ok {
			return nil, invalid("Keyspace %s does not exist", m[1])
		}
		name := m[1] + "." + m[2]
		if s.tables[name] == nil {
			t := &table{types: map[string]colType{}, rows: map[string]map[string][]byte{}}
			for _, def := range splitCols(m[3]) {
				f := strings.Fields(def)
				if len(f) < 2 {
					return nil, &Error{Code: ErrSyntax, Msg: "bad column definition " + def}
				}
				typ, ok := columnTypes[strings.ToLower(f[1])]
				if !ok {
					return nil, invalid("the test server has no type %s", f[1])
				}
				t.cols = append(t.cols, f[0])
				t.types[f[0]] = typ
				if strings.Contains(def, "PRIMARY KEY") {
					t.pk = f[0]
				}
			}
			s.tables[name] = t
		}
		return schemaChange("TABLE", m[1], m[2]), nil
	case reInsert.MatchString(stmt):
		m := reInsert.FindStringSubmatch(stmt)
		t := s.tables[m[1]+"."+m[2]]
		if t == nil {
			return nil, invalid("unconfigured table %s", m[2])
		}
		names := splitCols(m[3])
		if len(names) != len(vals) {
			return nil, invalid("there were %d markers(?) in CQL but %d bound variables", len(names), len(vals))
		}
		row := map[string][]byte{}
		key := ""
		for i, n := range names {
			if e := checkValue(col{name: n, typ: t.types[n]}, vals[i]); e != nil {
				return nil, e
			}
			row[n] = append([]byte(nil), vals[i]...)
			if n == t.pk {
				key = string(vals[i])
			}
		}
		t.rows[key] = row
		return voidResult(), nil
	case reCounter.MatchString(stmt):
		m := reCounter.FindStringSubmatch(stmt)
		t := s.tables[m[1]+"."+m[2]]
		if t == nil {
			return nil, invalid("unconfigured table %s", m[2])
		}
		key := string(val(0))
		row := t.rows[key]
		if row == nil {
			row = map[string][]byte{t.pk: []byte(key), m[3]: make([]byte, 8)}
			t.rows[key] = row
		}
		n := binary.BigEndian.Uint64(row[m[3]])
		binary.BigEndian.PutUint64(row[m[3]], n+1)
		return voidResult(), nil
	case reUpdate.MatchString(stmt):
		m := reUpdate.FindStringSubmatch(stmt)
		t := s.tables[m[1]+"."+m[2]]
		if t == nil {
			return nil, invalid("unconfigured table %s", m[2])
		}
		sets := splitCols(m[3])
		if len(sets)+1 != len(vals) {
			return nil, invalid("there were %d markers(?) in CQL but %d bound variables", len(sets)+1, len(vals))
		}
		for i, a := range sets {
			n, _, _ := strings.Cut(a, " = ")
			if e := checkValue(col{name: n, typ: t.types[n]}, vals[i]); e != nil {
				return nil, e
			}
		}
		if e := checkValue(col{name: m[4], typ: keyType(t, m[4])}, vals[len(vals)-1]); e != nil {
			return nil, e
		}
		key := string(vals[len(vals)-1])
		row := t.rows[key]
		if row == nil {
			row = map[string][]byte{t.pk: []byte(key)}
			t.rows[key] = row
		}
		for i, a := range sets {
			n, _, _ := strings.Cut(a, " = ")
			row[n] = append([]byte(nil), vals[i]...)
		}
		return voidResult(), nil
	case reScan.MatchString(stmt):
		m := reScan.FindStringSubmatch(stmt)
		t := s.tables[m[2]+"."+m[3]]
		if t == nil {
			return nil, invalid("unconfigured table %s", m[3])
		}
		cols, e := project(m[2], m[3], t, m[1])
		if e != nil {
			return nil, e
		}
		if len(vals) != 2 || len(vals[1]) != 4 {
			return nil, invalid("a token scan binds the key and an int limit")
		}
		limit := int(int32(binary.BigEndian.Uint32(vals[1])))
		keys := make([]string, 0, len(t.rows))
		for k := range t.rows {
			if k >= string(vals[0]) {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		if len(keys) > limit {
			keys = keys[:limit]
		}
		// The paging state is the offset of the next row (opaque to the client).
		off := 0
		if len(req.PagingState) == 4 {
			off = int(binary.BigEndian.Uint32(req.PagingState))
		}
		end := len(keys)
		if req.PageSize > 0 && off+int(req.PageSize) < end {
			end = off + int(req.PageSize)
		}
		var paging []byte
		if end < len(keys) {
			paging = binary.BigEndian.AppendUint32(nil, uint32(end))
		}
		var rows [][][]byte
		for _, k := range keys[min(off, len(keys)):end] {
			rows = append(rows, rowValues(t.rows[k], cols))
		}
		return rowsResult(cols, rows, paging, req.SkipMeta), nil
	case reSelectKey.MatchString(stmt):
		m := reSelectKey.FindStringSubmatch(stmt)
		t := s.tables[m[2]+"."+m[3]]
		if t == nil {
			return nil, invalid("unconfigured table %s", m[3])
		}
		cols, e := project(m[2], m[3], t, m[1])
		if e != nil {
			return nil, e
		}
		if e := checkValue(col{name: m[4], typ: keyType(t, m[4])}, val(0)); e != nil {
			return nil, e
		}
		var rows [][][]byte
		if r := t.rows[string(val(0))]; r != nil {
			rows = append(rows, rowValues(r, cols))
		}
		return rowsResult(cols, rows, nil, req.SkipMeta), nil
	case reDelete.MatchString(stmt):
		m := reDelete.FindStringSubmatch(stmt)
		t := s.tables[m[1]+"."+m[2]]
		if t == nil {
			return nil, invalid("unconfigured table %s", m[2])
		}
		if e := checkValue(col{name: m[3], typ: keyType(t, m[3])}, val(0)); e != nil {
			return nil, e
		}
		delete(t.rows, string(val(0)))
		return voidResult(), nil
	}
	return nil, &Error{Code: ErrSyntax, Msg: "the test server does not understand: " + stmt}
}

func project(ks, name string, t *table, list string) ([]col, *Error) {
	names := splitCols(list)
	if list == "*" {
		names = t.cols
	}
	var out []col
	for _, n := range names {
		typ, ok := t.types[n]
		if !ok {
			return nil, invalid("undefined column name %s", n)
		}
		out = append(out, col{ks, name, n, typ})
	}
	return out, nil
}

func rowValues(r map[string][]byte, cols []col) [][]byte {
	out := make([][]byte, len(cols))
	for i, c := range cols {
		out[i] = r[c.name] // nil: a null cell
	}
	return out
}

// parseReplication reads {'class': 'X', 'k': n} back into a map.
func parseReplication(s string) map[string]string {
	out := map[string]string{}
	s = strings.Trim(s, "{}")
	for _, p := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(p, ":")
		if !ok {
			continue
		}
		out[strings.Trim(strings.TrimSpace(k), "'")] = strings.Trim(strings.TrimSpace(v), "'")
	}
	return out
}

func schemaChange(target, ks, name string) []byte {
	var w writer
	w.int(resSchemaChange)
	w.string("CREATED")
	w.string(target)
	w.string(ks)
	if target == "TABLE" {
		w.string(name)
	}
	return w.b
}

// reader decodes the spec's notation (section 3).
type reader struct {
	b   []byte
	err error
}

var errShort = errors.New("frame body too short")

func (r *reader) take(n int) []byte {
	if r.err != nil || n < 0 || len(r.b) < n {
		r.err = errShort
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) byte() byte {
	if v := r.take(1); v != nil {
		return v[0]
	}
	return 0
}

func (r *reader) short() uint16 {
	if v := r.take(2); v != nil {
		return binary.BigEndian.Uint16(v)
	}
	return 0
}

func (r *reader) int() int32 {
	if v := r.take(4); v != nil {
		return int32(binary.BigEndian.Uint32(v))
	}
	return 0
}

func (r *reader) string() string { return string(r.take(int(r.short()))) }

func (r *reader) longString() string { return string(r.take(int(r.int()))) }

// bytes is [bytes]: a negative length is null (nil).
func (r *reader) bytes() []byte {
	n := r.int()
	if n < 0 {
		return nil
	}
	return append([]byte{}, r.take(int(n))...)
}

func (r *reader) shortBytes() []byte { return append([]byte(nil), r.take(int(r.short()))...) }

func (r *reader) stringList() []string {
	n := int(r.short())
	var out []string
	for i := 0; i < n && r.err == nil; i++ {
		out = append(out, r.string())
	}
	return out
}

func (r *reader) stringMap() map[string]string {
	n := int(r.short())
	out := map[string]string{}
	for i := 0; i < n && r.err == nil; i++ {
		k := r.string()
		out[k] = r.string()
	}
	return out
}

type writer struct{ b []byte }

func (w *writer) byte(v byte)    { w.b = append(w.b, v) }
func (w *writer) short(v uint16) { w.b = binary.BigEndian.AppendUint16(w.b, v) }
func (w *writer) int(v int32)    { w.b = binary.BigEndian.AppendUint32(w.b, uint32(v)) }
func (w *writer) string(s string) {
	w.short(uint16(len(s)))
	w.b = append(w.b, s...)
}
func (w *writer) shortBytes(b []byte) {
	w.short(uint16(len(b)))
	w.b = append(w.b, b...)
}

// bytes writes [bytes]; nil is null (-1).
func (w *writer) bytes(b []byte) {
	if b == nil {
		w.int(-1)
		return
	}
	w.int(int32(len(b)))
	w.b = append(w.b, b...)
}

func (w *writer) stringList(l []string) {
	w.short(uint16(len(l)))
	for _, s := range l {
		w.string(s)
	}
}
