// Package cql is soakd's ScyllaDB and Cassandra adapter (kind "cql", with
// the aliases "scylla" and "cassandra"), built on github.com/gocql/gocql.
// A record is one row of YCSB's table, usertable (y_id text PRIMARY KEY,
// field0..fieldN text), created at Prepare in a keyspace whose
// replication the URL sets. Every statement is prepared (the driver
// prepares statements with bind markers once per host and executes them
// by id) and routed token-aware: to a replica of the row's partition.
package cql

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocql/gocql"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// Target is a connected CQL cluster.
type Target struct {
	// session is swapped once, by Prepare, for one bound to the keyspace
	// it created (see useKeyspace).
	session  atomic.Pointer[gocql.Session]
	hosts    atomic.Pointer[hostCounter]
	st       scenarios.Target
	opts     targets.Options
	cfg      Config
	url      string // redacted
	secrets  []string
	timeouts targets.Timeouts // client.read_timeout, write_timeout
	// table is keyspace.table; statements name it in full because the
	// session has no keyspace (Prepare may create it).
	table string

	mu      sync.RWMutex
	inserts map[int]string // insert statement per field count (field0..fieldN-1)
	updates sync.Map       // field name -> one-field update statement
	reads   string         // select of every column, set by Prepare
	scan    string

	bound        atomic.Bool // the session is bound to the keyspace
	desc         atomic.Pointer[string]
	hostLat      hostLatency
	log          *driverLog // the driver's messages, one line per shape
	connErrors   atomic.Int64
	scrapeErrors atomic.Int64
	viewPools    viewQuery // system_views.thread_pools (views.go)
	viewClients  viewQuery // system_views.clients
	errCounts    [numErrKinds]atomic.Int64
	custom       *targets.CustomOps[customOp] // the scenario's custom ops (custom.go), set by Prepare
}

var (
	_ targets.Target      = (*Target)(nil)
	_ targets.Batcher     = (*Target)(nil)
	_ targets.Preparer    = (*Target)(nil)
	_ targets.StatsSource = (*Target)(nil)
	_ targets.Classifier  = (*Target)(nil)
	_ targets.Describer   = (*Target)(nil)
	_ targets.Barrier     = (*Target)(nil)
)

// Open connects to a cql:// (or cqls://) URL. The driver dials the
// hosts, reads system.local and system.peers to learn the ring, and
// keeps a pool of connections per host.
func Open(ctx context.Context, t scenarios.Target, o targets.Options) (targets.Target, error) {
	cfg, err := ParseURL(t.URL)
	if err != nil {
		return nil, err
	}
	tg := &Target{
		cfg:      cfg,
		url:      scenarios.RedactURL(t.URL),
		timeouts: targets.Timeouts{Read: t.Client.ReadTimeout.D(), Write: t.Client.WriteTimeout.D()},
		table:    cfg.Keyspace + "." + cfg.Table,
		inserts:  map[int]string{},
		st:       t,
		opts:     o,
		log:      newDriverLog(os.Stderr),
	}
	tg.setStatements(scenarios.DefaultFields)
	s, err := tg.connect("")
	if err != nil {
		return nil, err
	}
	tg.session.Store(s)
	return tg, nil
}

// connect opens a session, bound to keyspace when it is not empty.
func (t *Target) connect(keyspace string) (*gocql.Session, error) {
	cc, secrets, err := t.clusterConfig(t.st, t.opts)
	t.secrets = secrets
	if err != nil {
		return nil, t.scrub(err)
	}
	cc.Keyspace = keyspace
	defer t.log.flush() // "N more like ..." for the hosts a connect tried
	s, err := cc.CreateSession()
	if err != nil {
		return nil, t.scrub(fmt.Errorf("connect: %w", err))
	}
	t.hosts.Store(cc.PoolConfig.HostSelectionPolicy.(*hostCounter))
	return s, nil
}

// useKeyspace replaces the session by one bound to the keyspace. The
// token-aware policy learns the replicas of each token range only for
// the session's keyspace (from its replication strategy); without it,
// it sends each request to the token's primary owner alone, whatever
// its datacenter.
func (t *Target) useKeyspace() error {
	s, err := t.connect(t.cfg.Keyspace)
	if err != nil {
		return err
	}
	old := t.session.Swap(s)
	old.Close()
	return nil
}

func (t *Target) sess() *gocql.Session { return t.session.Load() }

// clusterConfig builds the driver configuration from the URL and the
// scenario's client, auth and tls blocks.
func (t *Target) clusterConfig(st scenarios.Target, o targets.Options) (*gocql.ClusterConfig, []string, error) {
	c := t.cfg
	cc := gocql.NewCluster(c.Hosts...)
	cc.ProtoVersion = c.Proto
	// Nodes the driver finds in system.peers are dialled on cc.Port: the
	// port the URL's hosts share (a cluster's nodes share the native port).
	if p := sharedPort(c.Hosts); p > 0 {
		cc.Port = p
	}
	cc.Consistency = c.Read
	cc.SerialConsistency = c.Serial
	cc.Timeout = c.Timeout
	cc.ConnectTimeout = c.ConnectTimeout
	if d := st.Client.DialTimeout.D(); d > 0 {
		cc.ConnectTimeout = d
	}
	cc.PageSize = c.PageSize
	// No retries: a soak tool shows the store's errors, it does not
	// paper over them (the driver's default policy is also none).
	cc.RetryPolicy = nil
	cc.NumConns = connsPerHost(c, st.Client.ClientCommon, o)
	if c.WriteCoalesceSet {
		cc.WriteCoalesceWaitTime = c.WriteCoalesce
	}
	if c.Compression == "snappy" {
		cc.Compressor = gocql.SnappyCompressor{}
	}
	fallback := gocql.RoundRobinHostPolicy()
	if c.LocalDC != "" {
		fallback = gocql.DCAwareRoundRobinPolicy(c.LocalDC)
	}
	cc.PoolConfig.HostSelectionPolicy = &hostCounter{HostSelectionPolicy: gocql.TokenAwareHostPolicy(fallback), up: map[string]bool{}}
	cc.ConnectObserver = connObserver{t}
	cc.QueryObserver = &t.hostLat
	if t.log == nil {
		t.log = newDriverLog(os.Stderr)
	}
	cc.Logger = t.log

	var secrets []string
	user := c.User
	if u := st.Auth.UsernameEnv; u != "" {
		user = o.Getenv(u)
		if user == "" {
			return nil, nil, fmt.Errorf("auth.username_env names %s, which is empty", u)
		}
	}
	if p := st.Auth.PasswordEnv; p != "" {
		pw := o.Getenv(p)
		if pw == "" {
			return nil, nil, fmt.Errorf("auth.password_env names %s, which is empty", p)
		}
		if user == "" {
			return nil, nil, errors.New("auth.password_env needs a user: put it in the URL (cql://user@host) or in auth.username_env")
		}
		secrets = append(secrets, pw)
		cc.Authenticator = gocql.PasswordAuthenticator{Username: user, Password: pw}
	} else if user != "" {
		return nil, nil, errors.New("a CQL user needs a password: name its environment variable in target.auth.password_env")
	}
	if c.TLS || st.TLS.Enabled || st.TLS.CAFile != "" || st.TLS.CertFile != "" {
		// No default server name: the driver checks each node's
		// certificate against the address it dials (nodes found in
		// system.peers included) unless tls.server_name names one.
		tc, err := targets.TLSConfig(st.TLS, "")
		if err != nil {
			return nil, nil, err
		}
		cc.SslOpts = &gocql.SslOptions{Config: tc, EnableHostVerification: !st.TLS.InsecureSkipVerify}
	}
	return cc, secrets, nil
}

// sharedPort is the port every host:port names, 0 when they differ.
func sharedPort(hosts []string) int {
	port := 0
	for _, h := range hosts {
		_, ps, err := net.SplitHostPort(h)
		if err != nil {
			return 0
		}
		p, err := strconv.Atoi(ps)
		if err != nil || (port != 0 && p != port) {
			return 0
		}
		port = p
	}
	return port
}

// connsPerHost is the URL's conns, else client.pool_size, else one
// connection per WorkersPerConn workers of the busiest phase (at least
// 2, at most MaxConnsPerHost): a CQL connection multiplexes thousands
// of requests, so one per worker (as for Redis) would only cost the
// server memory.
func connsPerHost(c Config, co scenarios.ClientCommon, o targets.Options) int {
	if c.Conns > 0 {
		return c.Conns
	}
	if co.PoolSize > 0 {
		return co.PoolSize
	}
	n := (o.Concurrency + WorkersPerConn - 1) / WorkersPerConn
	return min(max(n, 2), MaxConnsPerHost)
}

func (t *Target) scrub(err error) error { return targets.Scrub(err, t.secrets) }

// errConnLost marks a driver error that says "context canceled" while
// the op's own context was not: the driver cancels a connection's
// requests when the connection closes under them.
var errConnLost = errors.New("connection closed")

func lost(ctx context.Context, err error) error {
	if err != nil && errors.Is(err, context.Canceled) && ctx.Err() == nil {
		return fmt.Errorf("%w: %w", errConnLost, err)
	}
	return err
}

// Statements. The column list is fixed at Prepare from the scenario's
// record shape; inserts and updates name the fields the request holds.
func (t *Target) insertStmt(fields []targets.Field) string {
	canonical := true
	for i, f := range fields {
		if f.Name != scenarios.FieldName(i) {
			canonical = false
			break
		}
	}
	if canonical {
		t.mu.RLock()
		s, ok := t.inserts[len(fields)]
		t.mu.RUnlock()
		if ok {
			return s
		}
	}
	var b strings.Builder
	b.WriteString("INSERT INTO " + t.table + " (" + KeyColumn)
	for _, f := range fields {
		b.WriteString(", " + f.Name)
	}
	b.WriteString(") VALUES (?")
	for range fields {
		b.WriteString(", ?")
	}
	b.WriteString(")")
	s := b.String()
	if canonical {
		t.mu.Lock()
		t.inserts[len(fields)] = s
		t.mu.Unlock()
	}
	return s
}

func (t *Target) columns(n int) string {
	cols := make([]string, 0, n+1)
	cols = append(cols, KeyColumn)
	for i := 0; i < n; i++ {
		cols = append(cols, scenarios.FieldName(i))
	}
	return strings.Join(cols, ", ")
}

func (t *Target) setStatements(fields int) {
	cols := t.columns(fields)
	t.mu.Lock()
	t.reads = "SELECT " + cols + " FROM " + t.table + " WHERE " + KeyColumn + " = ?"
	t.scan = "SELECT " + cols + " FROM " + t.table + " WHERE token(" + KeyColumn + ") >= token(?) LIMIT ?"
	t.mu.Unlock()
}

func (t *Target) readStmts() (read, scan string) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.reads, t.scan
}

// Do runs one operation.
func (t *Target) Do(ctx context.Context, r *targets.Request) error {
	ctx, cancel := t.timeouts.Context(ctx, t.custom.Writes(r.Op))
	defer cancel()
	return t.scrub(lost(ctx, t.do(ctx, r)))
}

func (t *Target) do(ctx context.Context, r *targets.Request) error {
	if r.Op.IsCustom() {
		return t.doCustom(ctx, r)
	}
	switch r.Op {
	case scenarios.OpRead:
		return t.read(ctx, r.Key)
	case scenarios.OpUpdate:
		return t.update(ctx, r.Key, r.Fields)
	case scenarios.OpInsert:
		return t.insert(ctx, r)
	case scenarios.OpScan:
		return t.scanOp(ctx, r.Key, r.ScanLen)
	case scenarios.OpRMW:
		if err := t.read(ctx, r.Key); err != nil {
			return err
		}
		return t.update(ctx, r.Key, r.Fields)
	case scenarios.OpDelete:
		return t.sess().Query("DELETE FROM "+t.table+" WHERE "+KeyColumn+" = ?", r.Key).
			WithContext(ctx).Consistency(t.cfg.Write).Idempotent(true).Exec()
	}
	return fmt.Errorf("op %s is not supported by the cql target", r.Op)
}

// insertArgs is the bind values of an insert: the key, then each field.
// Values are []byte: the driver writes them as text without a copy.
func insertArgs(r *targets.Request) []any {
	args := make([]any, 0, len(r.Fields)+1)
	args = append(args, r.Key)
	for _, f := range r.Fields {
		args = append(args, f.Value)
	}
	return args
}

func (t *Target) insert(ctx context.Context, r *targets.Request) error {
	if len(r.Fields) == 0 {
		return errors.New("insert without fields")
	}
	return t.sess().Query(t.insertStmt(r.Fields), insertArgs(r)...).
		WithContext(ctx).Consistency(t.cfg.Write).Idempotent(true).Exec()
}

// read fetches every column of the row (as YCSB's binding does) and
// reports a missing row as targets.ErrNotFound.
func (t *Target) read(ctx context.Context, key []byte) error {
	stmt, _ := t.readStmts()
	iter := t.sess().Query(stmt, key).WithContext(ctx).Consistency(t.cfg.Read).Idempotent(true).Iter()
	n := iter.NumRows()
	if err := iter.Close(); err != nil {
		return err
	}
	if n == 0 {
		return targets.ErrNotFound
	}
	return nil
}

// update sets the request's fields. CQL's UPDATE is an upsert: it cannot
// tell a missing row (neither can YCSB's binding without a costly LWT).
func (t *Target) update(ctx context.Context, key []byte, fields []targets.Field) error {
	if len(fields) == 0 {
		return errors.New("update without fields")
	}
	args := make([]any, 0, len(fields)+1)
	for _, f := range fields {
		args = append(args, f.Value)
	}
	args = append(args, key)
	return t.sess().Query(t.updateStmt(fields), args...).WithContext(ctx).Consistency(t.cfg.Write).Idempotent(true).Exec()
}

// updateStmt is UPDATE t SET a = ?, b = ? WHERE y_id = ?; the one-field
// form YCSB's updates use is built once per field.
func (t *Target) updateStmt(fields []targets.Field) string {
	if len(fields) == 1 {
		if s, ok := t.updates.Load(fields[0].Name); ok {
			return s.(string)
		}
	}
	var b strings.Builder
	b.WriteString("UPDATE " + t.table + " SET ")
	for i, f := range fields {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f.Name + " = ?")
	}
	b.WriteString(" WHERE " + KeyColumn + " = ?")
	s := b.String()
	if len(fields) == 1 {
		t.updates.Store(fields[0].Name, s)
	}
	return s
}

// scanOp reads n rows in token order from the key's token on: YCSB's
// CQL scan. Rows arrive page_size at a time; the driver follows the
// paging state the server returns.
func (t *Target) scanOp(ctx context.Context, key []byte, n int) error {
	if n <= 0 {
		n = scenarios.DefaultScanLength
	}
	_, stmt := t.readStmts()
	iter := t.sess().Query(stmt, key, n).WithContext(ctx).Consistency(t.cfg.Read).
		PageSize(t.cfg.PageSize).Idempotent(true).Iter()
	sc := iter.Scanner()
	rows := 0
	for sc.Next() {
		rows++
	}
	return sc.Err()
}

// MaxBatch is the largest insert batch: 1 (no batching) unless the URL
// says batch=unlogged, then client.max_batch (default DefaultMaxBatch).
func (t *Target) MaxBatch() int {
	if t.cfg.Batch != "unlogged" {
		return 1
	}
	if n := t.st.Client.MaxBatch; n > 0 {
		return n
	}
	return DefaultMaxBatch
}

// DefaultMaxBatch bounds an unlogged batch: 16 records of 10 x 100 B
// are about 16 KB, under ScyllaDB's batch_size_warn_threshold_in_kb
// (128) but over Cassandra's (5): the coordinator logs a warning for
// each larger batch (client.max_batch lowers it).
const DefaultMaxBatch = 16

// Batchable: only inserts, and only with batch=unlogged. YCSB keys hash
// to distinct partitions, so one batch of a burst's inserts would be a
// multi-partition batch: its coordinator forwards each mutation to that
// partition's replicas and answers after the slowest, which is no
// faster than the inserts sent one by one over the same multiplexed
// connections. With batch=unlogged DoBatch therefore batches per
// replica (see the README).
func (t *Target) Batchable(op scenarios.Op) bool {
	return op == scenarios.OpInsert && t.cfg.Batch == "unlogged"
}

// DoBatch groups the inserts of a batch by the replica the token-aware
// policy picks first for each key, and sends each group as one UNLOGGED
// BATCH to that replica, the groups in parallel: every partition of a
// batch lives on its coordinator, so the coordinator does not forward
// mutations it could have received directly. Other ops run one by one.
// A group fails or succeeds as a whole; each request's End is when its
// group's reply arrived.
func (t *Target) DoBatch(ctx context.Context, reqs []*targets.Request, errs []error) {
	var ins []int
	for i, r := range reqs {
		switch {
		case r.Op != scenarios.OpInsert:
			errs[i] = t.Do(ctx, r)
			r.End = time.Now()
		case len(r.Fields) == 0:
			errs[i] = errors.New("insert without fields")
			r.End = time.Now()
		default:
			ins = append(ins, i)
		}
	}
	if len(ins) == 1 {
		errs[ins[0]] = t.Do(ctx, reqs[ins[0]])
		return
	}
	groups := groupBy(ins, func(i int) string { return t.replicaOf(reqs[i].Key) })
	wctx, cancel := t.timeouts.Context(ctx, true)
	defer cancel()
	var wg sync.WaitGroup
	for _, g := range groups {
		wg.Add(1)
		go func(g []int) {
			defer wg.Done()
			var err error
			if len(g) == 1 {
				err = t.Do(ctx, reqs[g[0]])
			} else {
				err = t.batch(wctx, reqs, g)
			}
			end := time.Now()
			for _, i := range g {
				errs[i] = err
				reqs[i].End = end
			}
		}(g)
	}
	wg.Wait()
}

func (t *Target) batch(ctx context.Context, reqs []*targets.Request, idx []int) error {
	s := t.sess()
	b := s.NewBatch(gocql.UnloggedBatch).WithContext(ctx)
	b.SetConsistency(t.cfg.Write)
	for _, i := range idx {
		b.Query(t.insertStmt(reqs[i].Fields), insertArgs(reqs[i])...)
	}
	return t.scrub(lost(ctx, s.ExecuteBatch(b)))
}

// replicaOf names the host the token-aware policy would send key to
// first ("" when it knows none): the key is the routing key of
// usertable's one-column partition key.
func (t *Target) replicaOf(key []byte) string {
	h := t.hosts.Load()
	if h == nil {
		return ""
	}
	q := t.sess().Query("").RoutingKey(key)
	defer q.Release()
	if sel := h.Pick(q)(); sel != nil && sel.Info() != nil {
		return sel.Info().HostID()
	}
	return ""
}

// groupBy splits idx by owner, keeping the order of first appearance.
func groupBy(idx []int, owner func(int) string) [][]int {
	pos := map[string]int{}
	var out [][]int
	for _, i := range idx {
		o := owner(i)
		j, ok := pos[o]
		if !ok {
			j = len(out)
			pos[o] = j
			out = append(out, nil)
		}
		out[j] = append(out[j], i)
	}
	return out
}

// Prepare creates the keyspace (with the URL's replication), the table
// with the scenario's field count and the barrier counter table, then
// reads system.local for the description.
func (t *Target) Prepare(ctx context.Context, sc *scenarios.Scenario) error {
	fields := scenarios.DefaultFields
	if sc != nil && sc.Record.Fields > 0 {
		fields = sc.Record.Fields
	}
	t.setStatements(fields)
	if err := t.prepareCustom(sc); err != nil {
		return err
	}
	// DDL waits for schema agreement across the nodes (up to the
	// driver's 60 s).
	pctx, cancel := context.WithTimeout(ctx, max(t.cfg.Timeout, 90*time.Second))
	defer cancel()
	stmts := []string{
		"CREATE KEYSPACE IF NOT EXISTS " + t.cfg.Keyspace + " WITH replication = " + t.cfg.Replication.CQL(),
		t.createTable(fields),
		"CREATE TABLE IF NOT EXISTS " + t.cfg.Keyspace + "." + BarrierTable + " (k text PRIMARY KEY, n counter)",
	}
	for _, s := range stmts {
		// DDL runs at the driver's default consistency; the driver then
		// waits for schema agreement across the nodes.
		if err := t.sess().Query(s).WithContext(pctx).Exec(); err != nil {
			return t.scrub(fmt.Errorf("%s: %w", firstWords(s), err))
		}
	}
	if t.sess() != nil && !t.bound.Load() {
		if err := t.useKeyspace(); err != nil {
			return err
		}
		t.bound.Store(true)
	}
	t.describe(pctx)
	return nil
}

func (t *Target) createTable(fields int) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE IF NOT EXISTS " + t.table + " (" + KeyColumn + " text PRIMARY KEY")
	for i := 0; i < fields; i++ {
		b.WriteString(", " + scenarios.FieldName(i) + " text")
	}
	b.WriteString(")")
	return b.String()
}

func firstWords(s string) string {
	w := strings.Fields(s)
	if len(w) > 6 {
		w = w[:6]
	}
	return strings.Join(w, " ")
}

func (t *Target) describe(ctx context.Context) {
	var release, cluster, dc, partitioner string
	err := t.sess().Query("SELECT release_version, cluster_name, data_center, partitioner FROM system.local WHERE key = 'local'").
		WithContext(ctx).Consistency(gocql.One).Scan(&release, &cluster, &dc, &partitioner)
	if err != nil {
		return
	}
	d := "CQL " + release
	// ScyllaDB reports its own version in system.versions (its
	// release_version is a Cassandra compatibility figure).
	var scylla string
	if t.sess().Query("SELECT version FROM system.versions WHERE key = 'local'").WithContext(ctx).Consistency(gocql.One).Scan(&scylla) == nil && scylla != "" {
		d = "ScyllaDB " + scylla + " (CQL " + release + ")"
	}
	if cluster != "" {
		d += " cluster " + strconv.Quote(cluster)
	}
	if dc != "" {
		d += " dc " + dc
	}
	t.desc.Store(&d)
}

// Describe reports the server version once Prepare has run.
func (t *Target) Describe() string {
	if d := t.desc.Load(); d != nil {
		return *d + " at " + t.url
	}
	return "CQL at " + t.url
}

// Close closes the session and its connections.
func (t *Target) Close() error {
	t.sess().Close()
	t.log.flush()
	return nil
}

// hostCounter is the token-aware policy with a count of the hosts the
// driver knows and those it sees up (for ServerStats).
type hostCounter struct {
	gocql.HostSelectionPolicy
	mu    sync.Mutex
	up    map[string]bool
	addrs map[string]string // host id -> address
}

func (h *hostCounter) set(host *gocql.HostInfo, up, remove bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	id := host.HostID()
	if id == "" {
		id = host.ConnectAddress().String()
	}
	if remove {
		delete(h.up, id)
		delete(h.addrs, id)
		return
	}
	h.up[id] = up
	if h.addrs == nil {
		h.addrs = map[string]string{}
	}
	if a := host.ConnectAddress(); a != nil {
		h.addrs[id] = a.String()
	}
}

// upAddrs lists the addresses of the hosts seen up.
func (h *hostCounter) upAddrs() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for id, u := range h.up {
		if a := h.addrs[id]; u && a != "" {
			out = append(out, a)
		}
	}
	sort.Strings(out)
	return out
}

func (h *hostCounter) AddHost(host *gocql.HostInfo) {
	h.set(host, true, false)
	h.HostSelectionPolicy.AddHost(host)
}

func (h *hostCounter) RemoveHost(host *gocql.HostInfo) {
	h.set(host, false, true)
	h.HostSelectionPolicy.RemoveHost(host)
}

func (h *hostCounter) HostUp(host *gocql.HostInfo) {
	h.set(host, true, false)
	h.HostSelectionPolicy.HostUp(host)
}

func (h *hostCounter) HostDown(host *gocql.HostInfo) {
	h.set(host, false, false)
	h.HostSelectionPolicy.HostDown(host)
}

func (h *hostCounter) counts() (known, up int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, u := range h.up {
		known++
		if u {
			up++
		}
	}
	return known, up
}

type connObserver struct{ t *Target }

func (c connObserver) ObserveConnect(o gocql.ObservedConnect) {
	if o.Err != nil {
		c.t.connErrors.Add(1)
	}
}

// AddHosts is the bulk form the driver uses at connect time; the
// token-aware policy builds its ring once from it.
func (h *hostCounter) AddHosts(hosts []*gocql.HostInfo) {
	for _, host := range hosts {
		h.set(host, true, false)
	}
	if b, ok := h.HostSelectionPolicy.(interface{ AddHosts([]*gocql.HostInfo) }); ok {
		b.AddHosts(hosts)
		return
	}
	for _, host := range hosts {
		h.HostSelectionPolicy.AddHost(host)
	}
}
