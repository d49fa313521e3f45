// Package mongo is soakd's MongoDB adapter (kind "mongo"), built on the
// official Go driver. A record is one document {_id: key, field0..fieldN:
// strings, num: integer}; num is the numeric field search ops sort by.
// When the scenario searches, documents also hold the workload's search
// text (title, body from scenarios.DocText) under a text index on title
// and body, the same shape as the RediSearch and Elasticsearch indexes.
package mongo

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/description"
	"go.mongodb.org/mongo-driver/mongo/options"
	"go.mongodb.org/mongo-driver/mongo/readpref"
	"go.mongodb.org/mongo-driver/mongo/writeconcern"
	"go.mongodb.org/mongo-driver/x/mongo/driver/topology"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// Defaults where the scenario is silent.
const (
	DefaultDatabase   = "soakd"
	DefaultCollection = "usertable"
	DefaultMaxBatch   = 100
	DefaultPageSize   = 10
	// DefaultPrepareTimeout bounds the reachability check in Prepare.
	DefaultPrepareTimeout = 10 * time.Second
	// NumField is the numeric field search ops sort by.
	NumField = "num"
	// TitleField and BodyField are the text-indexed fields of search.
	TitleField = "title"
	BodyField  = "body"
)

// Target is a connected MongoDB deployment.
type Target struct {
	client   *mongo.Client
	coll     *mongo.Collection
	url      string // redacted
	secrets  []string
	timeouts targets.Timeouts // client.read_timeout, write_timeout
	dialTO   time.Duration
	maxBatch int
	desc     atomic.Pointer[string]
	// searchDocs: inserts carry the search text (title, body); set by
	// Prepare when the scenario searches, before any op runs.
	searchDocs bool
	// corpus: documents come from record.source as they are, and the
	// text index covers record.query.from (corpus.go).
	corpus bool
	custom *targets.CustomOps[customOp] // the scenario's custom ops (custom.go), set by Prepare
}

var (
	_ targets.Target      = (*Target)(nil)
	_ targets.Batcher     = (*Target)(nil)
	_ targets.Preparer    = (*Target)(nil)
	_ targets.StatsSource = (*Target)(nil)
	_ targets.Classifier  = (*Target)(nil)
	_ targets.Describer   = (*Target)(nil)
)

// Open builds a client for a mongodb:// or mongodb+srv:// URL. The driver
// connects lazily; Prepare checks the server is reachable.
func Open(ctx context.Context, t scenarios.Target, o targets.Options) (targets.Target, error) {
	if !strings.HasPrefix(t.URL, "mongodb://") && !strings.HasPrefix(t.URL, "mongodb+srv://") {
		return nil, errors.New("URL must start with mongodb:// or mongodb+srv://")
	}
	cc, err := clientSchema.Decode(t)
	if err != nil {
		return nil, err
	}
	tg := &Target{
		url:      scenarios.RedactURL(t.URL),
		timeouts: targets.Timeouts{Read: t.Client.ReadTimeout.D(), Write: t.Client.WriteTimeout.D()},
		dialTO:   t.Client.DialTimeout.D(),
		maxBatch: t.Client.MaxBatch,
	}
	if tg.maxBatch <= 0 {
		tg.maxBatch = DefaultMaxBatch
	}
	if i := strings.Index(t.URL, "://"); i >= 0 {
		if at := strings.LastIndex(t.URL, "@"); at > i {
			if c := strings.Index(t.URL[i+3:at], ":"); c >= 0 {
				pw := t.URL[i+3+c+1 : at]
				tg.secrets = append(tg.secrets, pw)
				if dec, err := url.PathUnescape(pw); err == nil && dec != pw {
					tg.secrets = append(tg.secrets, dec)
				}
			}
		}
	}

	co, secrets, err := clientOptions(t, o)
	tg.secrets = append(tg.secrets, secrets...)
	if err != nil {
		return nil, tg.scrub(err)
	}
	cl, err := mongo.Connect(ctx, co)
	if err != nil {
		return nil, tg.scrub(fmt.Errorf("connect: %w", err))
	}
	tg.client = cl
	db := cc.Database
	if db == "" {
		db = DefaultDatabase
	}
	coll := cc.Collection
	if coll == "" {
		coll = DefaultCollection
	}
	tg.coll = cl.Database(db).Collection(coll)
	return tg, nil
}

// clientOptions builds the driver options: soakd defaults, then the URI
// (w, journal, readPreference, retryWrites, compressors, replicaSet, tls...),
// then the scenario's client options, auth and TLS block, which override
// the URI. It also returns the secrets errors must not show.
func clientOptions(t scenarios.Target, o targets.Options) (*options.ClientOptions, []string, error) {
	cc, err := clientSchema.Decode(t)
	if err != nil {
		return nil, nil, err
	}
	var secrets []string
	dial := t.Client.DialTimeout.D()
	// Defaults first: options present in the URI override them.
	co := options.Client()
	co.SetAppName("soakd")
	co.SetServerSelectionTimeout(5 * time.Second)
	if dial > 0 {
		co.SetConnectTimeout(dial)
		co.SetServerSelectionTimeout(dial)
	}
	co.ApplyURI(t.URL)
	if err := co.Validate(); err != nil {
		if strings.Contains(err.Error(), "lookup ") {
			return nil, nil, fmt.Errorf("cannot resolve the MongoDB URL's hosts: %w", err)
		}
		return nil, nil, fmt.Errorf("bad MongoDB URL: %w", err)
	}
	// Scenario client options override the URI.
	// client.pool_size, else the URI's maxPoolSize, else one connection
	// per worker of the busiest phase (the driver's default is 100).
	if n := o.PoolSize(t.Client.ClientCommon); n > 0 && (t.Client.PoolSize > 0 || co.MaxPoolSize == nil) {
		co.SetMaxPoolSize(uint64(n))
	}
	if rp := cc.ReadPreference; rp != "" {
		mode, err := readpref.ModeFromString(string(rp))
		if err != nil {
			return nil, nil, fmt.Errorf("client.read_preference %q: %w", rp, err)
		}
		p, err := readpref.New(mode)
		if err != nil {
			return nil, nil, fmt.Errorf("client.read_preference %q: %w", rp, err)
		}
		co.SetReadPreference(p)
	}
	if wc := cc.WriteConcern; wc != "" {
		w, err := ParseWriteConcern(wc)
		if err != nil {
			return nil, nil, err
		}
		co.SetWriteConcern(w)
	}
	if u := t.Auth.UsernameEnv; u != "" || t.Auth.PasswordEnv != "" {
		cred := options.Credential{}
		if co.Auth != nil {
			cred = *co.Auth
		}
		if u != "" {
			cred.Username = o.Getenv(u)
			if cred.Username == "" {
				return nil, nil, fmt.Errorf("auth.username_env names %s, which is empty", u)
			}
		}
		if p := t.Auth.PasswordEnv; p != "" {
			cred.Password = o.Getenv(p)
			if cred.Password == "" {
				return nil, nil, fmt.Errorf("auth.password_env names %s, which is empty", p)
			}
			cred.PasswordSet = true
			secrets = append(secrets, cred.Password)
		}
		co.SetAuth(cred)
	}
	if t.TLS.Enabled || t.TLS.CAFile != "" || t.TLS.CertFile != "" {
		cfg, err := targets.TLSConfig(t.TLS, "")
		if err != nil {
			return nil, nil, err
		}
		co.SetTLSConfig(cfg)
	}
	return co, secrets, nil
}

// ParseWriteConcern reads client.write_concern: "majority", a node count
// ("1", "0"), or either with ",j" (journal) or ",j=false" appended.
func ParseWriteConcern(s string) (*writeconcern.WriteConcern, error) {
	parts := strings.Split(s, ",")
	wc := &writeconcern.WriteConcern{}
	switch w := strings.TrimSpace(parts[0]); {
	case w == "majority":
		wc.W = "majority"
	default:
		n, err := strconv.Atoi(w)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("client.write_concern %q: want majority or a node count, optionally followed by ,j", s)
		}
		wc.W = n
	}
	for _, p := range parts[1:] {
		switch strings.TrimSpace(p) {
		case "j", "j=true", "journal":
			v := true
			wc.Journal = &v
		case "j=false":
			v := false
			wc.Journal = &v
		default:
			return nil, fmt.Errorf("client.write_concern %q: unknown option %q (use j or j=false)", s, p)
		}
	}
	return wc, nil
}

func (t *Target) scrub(err error) error { return targets.Scrub(err, t.secrets) }

// Do runs one operation.
func (t *Target) Do(ctx context.Context, r *targets.Request) error {
	ctx, cancel := t.timeouts.Context(ctx, t.custom.Writes(r.Op))
	defer cancel()
	return t.scrub(t.do(ctx, r))
}

func (t *Target) do(ctx context.Context, r *targets.Request) error {
	if r.Op.IsCustom() {
		return t.doCustom(ctx, r)
	}
	key := string(r.Key)
	switch r.Op {
	case scenarios.OpRead:
		return t.read(ctx, key)
	case scenarios.OpUpdate:
		return t.update(ctx, key, r.Fields)
	case scenarios.OpInsert:
		_, err := t.coll.InsertOne(ctx, t.document(r))
		return err
	case scenarios.OpScan:
		return t.scan(ctx, key, r.ScanLen)
	case scenarios.OpRMW:
		if err := t.read(ctx, key); err != nil {
			return err
		}
		return t.update(ctx, key, r.Fields)
	case scenarios.OpDelete:
		res, err := t.coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: key}})
		if err != nil {
			return err
		}
		if res.DeletedCount == 0 {
			return targets.ErrNotFound
		}
		return nil
	case scenarios.OpSearch:
		return t.search(ctx, r)
	}
	return fmt.Errorf("op %s is not supported by the mongo target", r.Op)
}

// document builds the record for an insert. A field named "num" is
// stored as an integer; without one, num is the record number. For a
// scenario that searches, title and body are the record's search text.
func (t *Target) document(r *targets.Request) bson.D {
	d := make(bson.D, 0, len(r.Fields)+4)
	d = append(d, bson.E{Key: "_id", Value: string(r.Key)})
	hasNum := false
	for _, f := range r.Fields {
		if f.Name == NumField {
			if n, err := strconv.ParseInt(string(f.Value), 10, 64); err == nil {
				d = append(d, bson.E{Key: NumField, Value: n})
				hasNum = true
				continue
			}
		}
		d = append(d, bson.E{Key: f.Name, Value: string(f.Value)})
	}
	if !hasNum {
		d = append(d, bson.E{Key: NumField, Value: r.KeyNum})
	}
	if t.searchDocs && !t.corpus {
		title, body := scenarios.DocText(r.KeyNum)
		d = append(d, bson.E{Key: TitleField, Value: title}, bson.E{Key: BodyField, Value: body})
	}
	return d
}

func (t *Target) read(ctx context.Context, key string) error {
	_, err := t.coll.FindOne(ctx, bson.D{{Key: "_id", Value: key}}).Raw()
	if errors.Is(err, mongo.ErrNoDocuments) {
		return targets.ErrNotFound
	}
	return err
}

func (t *Target) update(ctx context.Context, key string, fields []targets.Field) error {
	if len(fields) == 0 {
		return errors.New("update without fields")
	}
	set := make(bson.D, 0, len(fields))
	for _, f := range fields {
		set = append(set, bson.E{Key: f.Name, Value: string(f.Value)})
	}
	res, err := t.coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: key}}, bson.D{{Key: "$set", Value: set}})
	if err != nil {
		return err
	}
	if res.MatchedCount == 0 {
		return targets.ErrNotFound
	}
	return nil
}

func drain(ctx context.Context, cur *mongo.Cursor) error {
	defer cur.Close(context.WithoutCancel(ctx))
	for cur.Next(ctx) {
	}
	return cur.Err()
}

func (t *Target) scan(ctx context.Context, key string, n int) error {
	if n <= 0 {
		n = scenarios.DefaultScanLength
	}
	cur, err := t.coll.Find(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: key}}}},
		options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetLimit(int64(n)))
	if err != nil {
		return err
	}
	return drain(ctx, cur)
}

func (t *Target) search(ctx context.Context, r *targets.Request) error {
	filter, opts, err := searchQuery(r)
	if err != nil {
		return err
	}
	cur, err := t.coll.Find(ctx, filter, opts)
	if err != nil {
		return err
	}
	return drain(ctx, cur)
}

// searchQuery is the $text query of a search op: all the words of the
// engine's query (scenarios.SearchQuery) against the text index on title
// and body, each word quoted so $text requires every one (its default is
// any) as RediSearch and the Elasticsearch adapter do; sorted by num, one
// page of PageSize.
func searchQuery(r *targets.Request) (bson.D, *options.FindOptions, error) {
	if r.Query == "" {
		return nil, nil, errors.New("op search without a query")
	}
	size := r.PageSize
	if size <= 0 {
		size = DefaultPageSize
	}
	return bson.D{{Key: "$text", Value: bson.D{{Key: "$search", Value: allWords(r.Query)}}}},
		options.Find().SetSort(bson.D{{Key: NumField, Value: 1}}).SetSkip(int64(r.Page * size)).SetLimit(int64(size)), nil
}

// allWords quotes each word of q: "a b" becomes `"a" "b"`, a $text
// search that matches documents holding all the words.
func allWords(q string) string {
	b := make([]byte, 0, len(q)+8)
	for i, w := range strings.Fields(q) {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, '"')
		b = append(b, strings.ReplaceAll(w, `"`, ``)...)
		b = append(b, '"')
	}
	return string(b)
}

// MaxBatch is the largest InsertMany worth sending.
func (t *Target) MaxBatch() int { return t.maxBatch }

// Batchable: only inserts go together (one InsertMany); every other op
// is its own round trip.
func (t *Target) Batchable(op scenarios.Op) bool { return op == scenarios.OpInsert }

// DoBatch sends the inserts of a batch as one unordered InsertMany and
// runs the other ops one by one. A failed insert fails only its own slot.
func (t *Target) DoBatch(ctx context.Context, reqs []*targets.Request, errs []error) {
	var docs []any
	var idx []int
	for i, r := range reqs {
		if r.Op == scenarios.OpInsert {
			docs = append(docs, t.document(r))
			idx = append(idx, i)
			continue
		}
		errs[i] = t.Do(ctx, r)
		r.End = time.Now()
	}
	if len(docs) == 0 {
		return
	}
	if len(docs) == 1 {
		errs[idx[0]] = t.Do(ctx, reqs[idx[0]])
		return
	}
	wctx, cancel := t.timeouts.Context(ctx, true)
	defer cancel()
	_, err := t.coll.InsertMany(wctx, docs, options.InsertMany().SetOrdered(false))
	for _, i := range idx {
		errs[i] = nil
	}
	if err == nil {
		return
	}
	err = t.scrub(err)
	var bwe mongo.BulkWriteException
	if errors.As(err, &bwe) && bwe.WriteConcernError == nil && len(bwe.WriteErrors) > 0 {
		for _, we := range bwe.WriteErrors {
			if we.Index >= 0 && we.Index < len(idx) {
				errs[idx[we.Index]] = t.scrub(mongo.WriteException{WriteErrors: mongo.WriteErrors{we.WriteError}})
			}
		}
		return
	}
	for _, i := range idx {
		errs[i] = err
	}
}

// Prepare checks the server answers within a timeout and, when the
// scenario searches, creates the text index search needs.
func (t *Target) Prepare(ctx context.Context, sc *scenarios.Scenario) error {
	to := t.dialTO
	if to <= 0 {
		to = DefaultPrepareTimeout
	}
	pctx, cancel := context.WithTimeout(ctx, to)
	defer cancel()
	if err := t.client.Ping(pctx, nil); err != nil {
		return t.scrub(fmt.Errorf("MongoDB at %s is not reachable within %s: %w", t.url, to, err))
	}
	var bi struct {
		Version string `bson:"version"`
	}
	if err := t.coll.Database().RunCommand(pctx, bson.D{{Key: "buildInfo", Value: 1}}).Decode(&bi); err == nil && bi.Version != "" {
		d := "MongoDB " + bi.Version
		t.desc.Store(&d)
	}
	if err := t.prepareCustom(sc); err != nil {
		return err
	}
	if sc == nil || !sc.Uses(scenarios.OpSearch) {
		return nil
	}
	t.searchDocs = true
	keys := bson.D{{Key: TitleField, Value: "text"}, {Key: BodyField, Value: "text"}}
	if t.corpus = sc.HasCorpus(); t.corpus {
		keys = corpusTextKeys(sc)
	}
	_, err := t.coll.Indexes().CreateOne(pctx, mongo.IndexModel{Keys: keys, Options: options.Index().SetName("soakd_search")})
	if err != nil {
		return t.scrub(fmt.Errorf("search ops need a text index on %s, and the server at %s did not create one (it may not support text indexes): %w",
			t.coll.Name(), t.url, err))
	}
	if _, err := t.coll.Indexes().CreateOne(pctx, mongo.IndexModel{Keys: bson.D{{Key: NumField, Value: 1}}}); err != nil {
		return t.scrub(fmt.Errorf("creating the index on %s.%s: %w", t.coll.Name(), NumField, err))
	}
	return nil
}

// Describe reports the server version once Prepare has run.
func (t *Target) Describe() string {
	if d := t.desc.Load(); d != nil {
		return *d + " at " + t.url
	}
	return "MongoDB at " + t.url
}

// Close disconnects.
func (t *Target) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return t.scrub(t.client.Disconnect(ctx))
}

// MongoDB server error codes that mean the server refused the op.
var rejectedCodes = map[int32]bool{
	10107: true, // NotWritablePrimary
	13435: true, // NotPrimaryNoSecondaryOk
	13436: true, // NotPrimaryOrSecondary
	189:   true, // PrimarySteppedDown
	91:    true, // ShutdownInProgress
	11600: true, // InterruptedAtShutdown
	11602: true, // InterruptedDueToReplStateChange
	462:   true, // IngressRequestRateLimitExceeded
	64:    true, // WriteConcernFailed
	100:   true, // UnsatisfiableWriteConcern
	13:    true, // Unauthorized
	18:    true, // AuthenticationFailed
}

// Classify maps driver errors to soakd's classes: timeout, connection,
// rejected (write concern failures, elections, shutdown, auth), other.
func (t *Target) Classify(err error) string {
	if err == nil {
		return targets.ClassOK
	}
	if errors.Is(err, targets.ErrNotFound) {
		return targets.ClassNotFound
	}
	if mongo.IsTimeout(err) || errors.Is(err, context.DeadlineExceeded) {
		// A server selection that timed out because no server answers is
		// a connection problem, not a slow store: a server with an error,
		// or none that ever answered (still of kind unknown: on a loaded
		// host the selection can time out before the first dial fails).
		var sse topology.ServerSelectionError
		if errors.As(err, &sse) {
			answered := false
			for _, s := range sse.Desc.Servers {
				if s.LastError != nil {
					return targets.ClassConnection
				}
				answered = answered || s.Kind != description.Unknown
			}
			if !answered {
				return targets.ClassConnection
			}
		}
		return targets.ClassTimeout
	}
	if mongo.IsNetworkError(err) {
		return targets.ClassConnection
	}
	var sse topology.ServerSelectionError
	if errors.As(err, &sse) {
		return targets.ClassConnection
	}
	if errors.Is(err, mongo.ErrClientDisconnected) {
		return targets.ClassConnection
	}
	var we mongo.WriteException
	if errors.As(err, &we) && we.WriteConcernError != nil {
		return targets.ClassRejected
	}
	var bwe mongo.BulkWriteException
	if errors.As(err, &bwe) && bwe.WriteConcernError != nil {
		return targets.ClassRejected
	}
	var se mongo.ServerError
	if errors.As(err, &se) {
		for c := range rejectedCodes {
			if se.HasErrorCode(int(c)) {
				return targets.ClassRejected
			}
		}
		return targets.ClassOther
	}
	return targets.ClassifyGeneric(err)
}

// ServerStats runs serverStatus and dbStats. Figures the server does not
// report are absent from the map.
func (t *Target) ServerStats(ctx context.Context) (map[string]float64, error) {
	out := map[string]float64{}
	db := t.coll.Database()
	ss, errSS := db.RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Raw()
	if errSS == nil {
		for _, op := range []string{"insert", "query", "update", "delete", "getmore", "command"} {
			put(out, "opcounters_"+op, ss, 1, "opcounters", op)
		}
		put(out, "connections_current", ss, 1, "connections", "current")
		put(out, "wiredtiger_cache_bytes", ss, 1, "wiredTiger", "cache", "bytes currently in the cache")
		put(out, "wiredtiger_cache_dirty_bytes", ss, 1, "wiredTiger", "cache", "tracked dirty bytes in the cache")
		put(out, "wiredtiger_pages_read_into_cache", ss, 1, "wiredTiger", "cache", "pages read into cache")
		put(out, "mem_resident_bytes", ss, 1<<20, "mem", "resident")
		// The server's own time per class of operation (microseconds
		// summed since its start), in the keys Redis's commandstats use
		// (verdict/serverside.go): cmd_reads_*, cmd_writes_*, cmd_commands_*.
		for _, c := range []string{"reads", "writes", "commands"} {
			put(out, "cmd_"+c+"_calls_total", ss, 1, "opLatencies", c, "ops")
			put(out, "cmd_"+c+"_seconds_total", ss, 1e-6, "opLatencies", c, "latency")
		}
	}
	ds, errDS := db.RunCommand(ctx, bson.D{{Key: "dbStats", Value: 1}}).Raw()
	if errDS == nil {
		put(out, "db_data_size_bytes", ds, 1, "dataSize")
		put(out, "db_storage_size_bytes", ds, 1, "storageSize")
		put(out, "db_objects", ds, 1, "objects")
	}
	if errSS != nil && errDS != nil {
		return nil, t.scrub(fmt.Errorf("serverStatus: %v; dbStats: %w", errSS, errDS))
	}
	return out, nil
}

// put stores the number at path, scaled, if the document has one.
func put(m map[string]float64, name string, doc bson.Raw, scale float64, path ...string) {
	v, err := doc.LookupErr(path...)
	if err != nil {
		return
	}
	var f float64
	switch v.Type {
	case bson.TypeDouble:
		f = v.Double()
	case bson.TypeInt32:
		f = float64(v.Int32())
	case bson.TypeInt64:
		f = float64(v.Int64())
	case bson.TypeDecimal128:
		d, err := strconv.ParseFloat(v.Decimal128().String(), 64)
		if err != nil {
			return
		}
		f = d
	default:
		return
	}
	m[name] = f * scale
}
