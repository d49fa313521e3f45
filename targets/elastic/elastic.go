// Package elastic is soakd's Elasticsearch adapter (kind "elastic"), built
// on the official go-elasticsearch v8 client. A record is one document
// {id: key (keyword), field0..fieldN: text, num: long} indexed under _id key;
// when the scenario searches, it also holds the workload's search document
// (title and body: text, from scenarios.DocText), and the field* values
// are stored but not indexed, as on the other stores.
package elastic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/elastic/elastic-transport-go/v8/elastictransport"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// Defaults where the scenario is silent.
const (
	DefaultIndex    = "soakd"
	DefaultMaxBatch = 500
	DefaultPageSize = 10
	// DefaultPoolSize is the idle connections kept per node when neither
	// client.pool_size nor the scenario's concurrency says how many.
	DefaultPoolSize       = 64
	DefaultPrepareTimeout = 10 * time.Second
	// IDField is the keyword copy of the id that scans sort on.
	IDField = "id"
	// NumField is the numeric field search ops sort by.
	NumField = "num"
	// TitleField and BodyField are the text fields search ops match.
	TitleField = "title"
	BodyField  = "body"
)

// Target is a connected Elasticsearch cluster.
type Target struct {
	es       *elastictransport.Client
	index    string
	pathDoc  string  // "/index/_doc/"
	pathUpd  string  // "/index/_update/"
	pathSrch string  // "/index/_search"
	refresh  Refresh // "" (server default, false) | wait_for | true
	url      string  // redacted
	secrets  []string
	timeouts targets.Timeouts // client.read_timeout, write_timeout
	dialTO   time.Duration
	maxBatch int
	shards   int
	replicas *int
	desc     atomic.Pointer[string]
	isES     atomic.Bool // a reply carried X-Elastic-Product: Elasticsearch (checkProduct)
	// searchDocs: inserts carry the search document (title, body); set by
	// Prepare when the scenario searches, before any op runs.
	searchDocs bool
	// corpus: documents come from record.source; searches and the index
	// cover its text fields (set by Prepare, corpus.go).
	corpus       bool
	searchFields []byte                       // JSON array of the fields searches query
	custom       *targets.CustomOps[customOp] // the scenario's custom ops (custom.go), set by Prepare
}

var (
	_ targets.Target      = (*Target)(nil)
	_ targets.Batcher     = (*Target)(nil)
	_ targets.Preparer    = (*Target)(nil)
	_ targets.StatsSource = (*Target)(nil)
	_ targets.Classifier  = (*Target)(nil)
	_ targets.Describer   = (*Target)(nil)
)

// Open builds a client for an http:// or https:// URL. Credentials come
// from the environment variables the scenario names: api_key_env, or
// username_env/password_env for basic auth.
func Open(ctx context.Context, t scenarios.Target, o targets.Options) (targets.Target, error) {
	u, err := url.Parse(t.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("URL must look like http://host:9200 or https://host:9200")
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
		shards:   cc.IndexShards,
		replicas: cc.IndexReplicas,
		index:    cc.index(),
	}
	if tg.maxBatch <= 0 {
		tg.maxBatch = DefaultMaxBatch
	}
	if cc.Refresh != RefreshFalse {
		tg.refresh = cc.Refresh
	}
	ei := url.PathEscape(tg.index)
	tg.pathDoc, tg.pathUpd, tg.pathSrch = "/"+ei+"/_doc/", "/"+ei+"/_update/", "/"+ei+"/_search"

	// The transport alone, not the go-elasticsearch client: importing the
	// client's root package compiles its ~860-package typed API, which
	// soakd never calls (issue 46: a cold first run took 20 minutes).
	base, err := url.Parse(t.URL)
	if err != nil {
		return nil, fmt.Errorf("target url: %w", targets.Scrub(err, tg.secrets))
	}
	base.Path = strings.TrimRight(base.Path, "/")
	cfg := elastictransport.Config{
		URLs:         []*url.URL{base},
		DisableRetry: true,
	}
	if p, has := u.User.Password(); has {
		tg.secrets = append(tg.secrets, p)
	}
	if k := t.Auth.APIKeyEnv; k != "" {
		cfg.APIKey = o.Getenv(k)
		if cfg.APIKey == "" {
			return nil, fmt.Errorf("auth.api_key_env names %s, which is empty", k)
		}
		tg.secrets = append(tg.secrets, cfg.APIKey)
	} else if t.Auth.UsernameEnv != "" || t.Auth.PasswordEnv != "" {
		if k := t.Auth.UsernameEnv; k != "" {
			cfg.Username = o.Getenv(k)
			if cfg.Username == "" {
				return nil, fmt.Errorf("auth.username_env names %s, which is empty", k)
			}
		}
		if k := t.Auth.PasswordEnv; k != "" {
			cfg.Password = o.Getenv(k)
			if cfg.Password == "" {
				return nil, fmt.Errorf("auth.password_env names %s, which is empty", k)
			}
			tg.secrets = append(tg.secrets, cfg.Password)
		}
	}
	tr, err := transport(t, o)
	if err != nil {
		return nil, err
	}
	cfg.Transport = tr
	es, err := elastictransport.New(cfg)
	if err != nil {
		return nil, tg.scrub(err)
	}
	tg.es = es
	return tg, nil
}

// transport keeps client.pool_size idle connections per node, else one
// per worker of the busiest phase, else DefaultPoolSize. More requests
// in flight than that still open connections (HTTP/1.1 has one request
// per connection); they are closed after use instead of kept.
func transport(t scenarios.Target, o targets.Options) (*http.Transport, error) {
	pool := o.PoolSize(t.Client.ClientCommon)
	if pool <= 0 {
		pool = DefaultPoolSize
	}
	dial := t.Client.DialTimeout.D()
	if dial <= 0 {
		dial = 5 * time.Second
	}
	tr := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         (&net.Dialer{Timeout: dial, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        pool,
		MaxIdleConnsPerHost: pool,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: dial,
		ForceAttemptHTTP2:   false,
	}
	c := t.TLS
	if c.Enabled || c.CAFile != "" || c.CertFile != "" || c.InsecureSkipVerify || c.ServerName != "" {
		cfg, err := targets.TLSConfig(c, "")
		if err != nil {
			return nil, err
		}
		tr.TLSClientConfig = cfg
	}
	return tr, nil
}

// Error is an error response from Elasticsearch (or a failed bulk item).
type Error struct {
	Status int
	Type   string
	Reason string
}

func (e *Error) Error() string {
	if e.Type == "" {
		return "elasticsearch: HTTP " + strconv.Itoa(e.Status)
	}
	return fmt.Sprintf("elasticsearch: HTTP %d %s: %s", e.Status, e.Type, e.Reason)
}

type errBody struct {
	Type   string `json:"type"`
	Reason string `json:"reason"`
}

func (t *Target) scrub(err error) error { return targets.Scrub(err, t.secrets) }

// errNotElasticsearch: the server answered without the header every
// Elasticsearch since 7.14 sends.
var errNotElasticsearch = errors.New("the server is not Elasticsearch (no X-Elastic-Product: Elasticsearch header in its reply)")

// checkProduct refuses a server that does not say it is Elasticsearch,
// until one reply has said so (as the go-elasticsearch client's product
// check does). Replies refused for authentication carry no header and
// prove nothing either way.
func (t *Target) checkProduct(res *http.Response) error {
	if t.isES.Load() || res.StatusCode == http.StatusUnauthorized || res.StatusCode == http.StatusForbidden {
		return nil
	}
	if res.Header.Get("X-Elastic-Product") != "Elasticsearch" {
		return errNotElasticsearch
	}
	t.isES.Store(true)
	return nil
}

// call sends one request. It returns the status and, when out is non-nil
// and the status is 2xx (or 404 and want404), decodes the body into out.
// Other statuses become *Error; a 404 with want404 is returned as-is.
func (t *Target) call(ctx context.Context, method, path, query string, body []byte, ctype string, want404 bool, out any) (int, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	u := path
	if query != "" {
		u += "?" + query
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return 0, err
	}
	if body != nil {
		if ctype == "" {
			ctype = "application/json"
		}
		req.Header.Set("Content-Type", ctype)
	}
	req.Header.Set("Accept", "application/json")
	res, err := t.es.Perform(req)
	if err != nil {
		return 0, t.scrub(err)
	}
	defer res.Body.Close()
	if err := t.checkProduct(res); err != nil {
		return res.StatusCode, err
	}
	ok := res.StatusCode >= 200 && res.StatusCode < 300
	if ok || (want404 && res.StatusCode == http.StatusNotFound) {
		if out != nil {
			if err := json.NewDecoder(res.Body).Decode(out); err != nil && !errors.Is(err, io.EOF) {
				return res.StatusCode, fmt.Errorf("decoding %s %s response: %w", method, path, err)
			}
		}
		_, _ = io.Copy(io.Discard, res.Body)
		return res.StatusCode, nil
	}
	var eb struct {
		Error json.RawMessage `json:"error"`
	}
	data, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	e := &Error{Status: res.StatusCode}
	if json.Unmarshal(data, &eb) == nil && len(eb.Error) > 0 {
		var b errBody
		if json.Unmarshal(eb.Error, &b) == nil {
			e.Type, e.Reason = b.Type, b.Reason
		} else {
			var s string
			if json.Unmarshal(eb.Error, &s) == nil {
				e.Reason = s
			}
		}
	}
	return res.StatusCode, t.scrub(e)
}

func (t *Target) refreshQuery() string {
	if t.refresh == "" {
		return ""
	}
	return "refresh=" + string(t.refresh)
}

// Do runs one operation.
func (t *Target) Do(ctx context.Context, r *targets.Request) error {
	ctx, cancel := t.timeouts.Context(ctx, t.custom.Writes(r.Op))
	defer cancel()
	if r.Op.IsCustom() {
		return t.doCustom(ctx, r)
	}
	key := url.PathEscape(string(r.Key))
	switch r.Op {
	case scenarios.OpInsert:
		_, err := t.call(ctx, http.MethodPut, t.pathDoc+key, t.refreshQuery(), appendDoc(nil, r, t.searchDocs && !t.corpus), "", false, nil)
		return err
	case scenarios.OpRead:
		return t.read(ctx, key)
	case scenarios.OpUpdate:
		return t.update(ctx, key, r.Fields)
	case scenarios.OpRMW:
		if err := t.read(ctx, key); err != nil {
			return err
		}
		return t.update(ctx, key, r.Fields)
	case scenarios.OpDelete:
		var res struct {
			Result string `json:"result"`
		}
		st, err := t.call(ctx, http.MethodDelete, t.pathDoc+key, t.refreshQuery(), nil, "", true, &res)
		if err != nil {
			return err
		}
		if st == http.StatusNotFound {
			return targets.ErrNotFound
		}
		return nil
	case scenarios.OpSearch:
		return t.search(ctx, r)
	case scenarios.OpScan:
		return t.scan(ctx, string(r.Key), r.ScanLen)
	}
	return fmt.Errorf("op %s is not supported by the elastic target", r.Op)
}

func (t *Target) read(ctx context.Context, key string) error {
	var res struct {
		Found bool            `json:"found"`
		Error json.RawMessage `json:"error"`
	}
	st, err := t.call(ctx, http.MethodGet, t.pathDoc+key, "", nil, "", true, &res)
	if err != nil {
		return err
	}
	if st == http.StatusNotFound {
		if len(res.Error) > 0 {
			// index_not_found_exception and friends: not a missing record.
			var b errBody
			_ = json.Unmarshal(res.Error, &b)
			return &Error{Status: st, Type: b.Type, Reason: b.Reason}
		}
		return targets.ErrNotFound
	}
	if !res.Found {
		return targets.ErrNotFound
	}
	return nil
}

func (t *Target) update(ctx context.Context, key string, fields []targets.Field) error {
	if len(fields) == 0 {
		return errors.New("update without fields")
	}
	b := append(make([]byte, 0, 64+len(fields)*128), `{"doc":{`...)
	for i, f := range fields {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, f.Name)
		b = append(b, ':')
		b = appendString(b, f.Value)
	}
	b = append(b, "}}"...)
	_, err := t.call(ctx, http.MethodPost, t.pathUpd+key, t.refreshQuery(), b, "", false, nil)
	var e *Error
	if errors.As(err, &e) && e.Status == http.StatusNotFound && e.Type == "document_missing_exception" {
		return targets.ErrNotFound
	}
	return err
}

func (t *Target) search(ctx context.Context, r *targets.Request) error {
	size := r.PageSize
	if size <= 0 {
		size = DefaultPageSize
	}
	if r.Query == "" {
		return errors.New("op search without a query")
	}
	// All the query's words (the engine's scenarios.SearchQuery), across
	// title and body as one field, sorted by num: what RediSearch's
	// FT.SEARCH and MongoDB's $text of the same words do.
	b := append(make([]byte, 0, 192), `{"query":{"multi_match":{"query":`...)
	b = appendString(b, r.Query)
	b = append(b, `,"fields":`...)
	b = append(b, t.queryFields()...)
	b = append(b, `,"type":"cross_fields","operator":"and"}},"sort":[{"num":"asc"}],"size":`...)
	b = strconv.AppendInt(b, int64(size), 10)
	b = append(b, `,"from":`...)
	b = strconv.AppendInt(b, int64(r.Page*size), 10)
	b = append(b, '}')
	_, err := t.call(ctx, http.MethodPost, t.pathSrch, "", b, "", false, nil)
	return err
}

// scan reads ScanLen records in id order starting at key: a range query
// on the keyword id, sorted by it (the search_after of a paging scan,
// made inclusive of the start key as YCSB's scan is).
func (t *Target) scan(ctx context.Context, key string, n int) error {
	if n <= 0 {
		n = scenarios.DefaultScanLength
	}
	b := append(make([]byte, 0, 128), `{"query":{"range":{"id":{"gte":`...)
	b = appendString(b, key)
	b = append(b, `}}},"sort":[{"id":"asc"}],"size":`...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, '}')
	_, err := t.call(ctx, http.MethodPost, t.pathSrch, "", b, "", false, nil)
	return err
}

// appendDoc writes the record as JSON: id, the fields, num (a field
// named "num" holding an integer, else the record number) and, with
// text, the record's search document title and body.
func appendDoc(b []byte, r *targets.Request, text bool) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, r.Key)
	hasNum := false
	for _, f := range r.Fields {
		if f.Name == IDField {
			continue // the document's key (a corpus's own id field)
		}
		b = append(b, ',')
		b = appendString(b, f.Name)
		b = append(b, ':')
		if f.Name == NumField {
			if _, err := strconv.ParseInt(string(f.Value), 10, 64); err == nil {
				b = append(b, f.Value...)
				hasNum = true
				continue
			}
		}
		b = appendString(b, f.Value)
	}
	if !hasNum {
		b = append(b, `,"num":`...)
		b = strconv.AppendInt(b, r.KeyNum, 10)
	}
	if text {
		// Vocabulary words: nothing to escape.
		b = append(b, `,"title":"`...)
		b = scenarios.AppendTitle(b, r.KeyNum)
		b = append(b, `","body":"`...)
		b = scenarios.AppendBody(b, r.KeyNum)
		b = append(b, '"')
	}
	return append(b, '}')
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string.
func appendString[S ~string | ~[]byte](b []byte, s S) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// MaxBatch is the largest _bulk request worth sending.
func (t *Target) MaxBatch() int { return t.maxBatch }

// Batchable: only inserts go together (one _bulk request); every other
// op is its own request.
func (t *Target) Batchable(op scenarios.Op) bool { return op == scenarios.OpInsert }

// DoBatch sends the inserts of a batch through _bulk and runs other ops
// one by one. Bulk items that fail count as errors of their own slot.
func (t *Target) DoBatch(ctx context.Context, reqs []*targets.Request, errs []error) {
	var body []byte
	var idx []int
	for i, r := range reqs {
		if r.Op != scenarios.OpInsert {
			errs[i] = t.Do(ctx, r)
			r.End = time.Now()
			continue
		}
		body = append(body, `{"index":{"_index":`...)
		body = appendString(body, t.index)
		body = append(body, `,"_id":`...)
		body = appendString(body, r.Key)
		body = append(body, "}}\n"...)
		body = appendDoc(body, r, t.searchDocs && !t.corpus)
		body = append(body, '\n')
		idx = append(idx, i)
	}
	if len(idx) == 0 {
		return
	}
	wctx, cancel := t.timeouts.Context(ctx, true)
	defer cancel()
	var res struct {
		Errors bool `json:"errors"`
		Items  []map[string]struct {
			Status int      `json:"status"`
			Error  *errBody `json:"error"`
		} `json:"items"`
	}
	_, err := t.call(wctx, http.MethodPost, "/_bulk", t.refreshQuery(), body, "application/x-ndjson", false, &res)
	for n, i := range idx {
		switch {
		case err != nil:
			errs[i] = err
		case !res.Errors:
			errs[i] = nil
		case n >= len(res.Items):
			errs[i] = errors.New("elasticsearch: bulk response has fewer items than the request")
		default:
			errs[i] = nil
			for _, it := range res.Items[n] {
				if it.Status >= 300 || it.Error != nil {
					e := &Error{Status: it.Status}
					if it.Error != nil {
						e.Type, e.Reason = it.Error.Type, it.Error.Reason
					}
					errs[i] = e
				}
			}
		}
	}
}

// Prepare checks the cluster answers and creates the index if absent,
// with the scenario's shard/replica counts and the record's mappings.
func (t *Target) Prepare(ctx context.Context, sc *scenarios.Scenario) error {
	to := t.dialTO
	if to <= 0 {
		to = DefaultPrepareTimeout
	}
	pctx, cancel := context.WithTimeout(ctx, to)
	defer cancel()
	var info struct {
		Version struct {
			Number string `json:"number"`
		} `json:"version"`
		ClusterName string `json:"cluster_name"`
	}
	if _, err := t.call(pctx, http.MethodGet, "/", "", nil, "", false, &info); err != nil {
		return fmt.Errorf("elasticsearch at %s is not usable: %w", t.url, err)
	}
	d := "Elasticsearch " + info.Version.Number
	if info.ClusterName != "" {
		d += " (cluster " + info.ClusterName + ")"
	}
	t.desc.Store(&d)
	if err := t.prepareCustom(sc); err != nil {
		return err
	}
	t.searchDocs = sc != nil && sc.Uses(scenarios.OpSearch)
	t.prepareCorpus(sc)
	st, err := t.call(pctx, http.MethodHead, "/"+url.PathEscape(t.index), "", nil, "", true, nil)
	if err != nil {
		return fmt.Errorf("checking index %s: %w", t.index, err)
	}
	if st != http.StatusNotFound {
		return nil
	}
	fields := scenarios.DefaultFields
	if sc != nil && sc.Record.Fields > 0 {
		fields = sc.Record.Fields
	}
	body := t.indexBody(fields, t.searchDocs)
	if t.corpus {
		body = t.corpusIndexBody(sc)
	}
	_, err = t.call(pctx, http.MethodPut, "/"+url.PathEscape(t.index), "", body, "", false, nil)
	var e *Error
	if errors.As(err, &e) && e.Type == "resource_already_exists_exception" {
		return nil
	}
	if err != nil {
		return fmt.Errorf("creating index %s: %w", t.index, err)
	}
	return nil
}

// indexBody is the create-index request: id keyword, num long, the
// fields as text; for a search scenario title and body are the text
// fields, and the fields are kept in _source only (not indexed), so the
// index has the shape of the RediSearch and MongoDB text indexes.
func (t *Target) indexBody(fields int, search bool) []byte {
	type prop struct {
		Type  string `json:"type"`
		Index *bool  `json:"index,omitempty"`
	}
	props := map[string]prop{IDField: {Type: "keyword"}, NumField: {Type: "long"}}
	var noIndex *bool
	if search {
		props[TitleField], props[BodyField] = prop{Type: "text"}, prop{Type: "text"}
		noIndex = new(bool)
	}
	for i := 0; i < fields; i++ {
		props[scenarios.FieldName(i)] = prop{Type: "text", Index: noIndex}
	}
	settings := map[string]int{}
	if t.shards > 0 {
		settings["number_of_shards"] = t.shards
	}
	if t.replicas != nil {
		settings["number_of_replicas"] = *t.replicas
	}
	body := map[string]any{"mappings": map[string]any{"properties": props}}
	if len(settings) > 0 {
		body["settings"] = settings
	}
	b, _ := json.Marshal(body)
	return b
}

// Describe reports the server version once Prepare has run.
func (t *Target) Describe() string {
	if d := t.desc.Load(); d != nil {
		return *d + " at " + t.url
	}
	return "Elasticsearch at " + t.url
}

// Close releases the client's idle connections.
func (t *Target) Close() error {
	return t.es.Close(context.Background())
}

// Classify maps errors to soakd's classes: 429 (and 503) responses are
// "rejected", 408/504 and *_timeout_exception "timeout", network failures
// "connection".
func (t *Target) Classify(err error) string {
	if err == nil {
		return targets.ClassOK
	}
	var e *Error
	if errors.As(err, &e) {
		switch {
		case e.Status == http.StatusTooManyRequests || e.Status == http.StatusServiceUnavailable ||
			e.Type == "es_rejected_execution_exception" || e.Type == "circuit_breaking_exception":
			return targets.ClassRejected
		case e.Status == http.StatusRequestTimeout || e.Status == http.StatusGatewayTimeout ||
			strings.HasSuffix(e.Type, "timeout_exception"):
			return targets.ClassTimeout
		}
		return targets.ClassOther
	}
	return ""
}

type nodeStats struct {
	Nodes map[string]struct {
		JVM struct {
			Mem struct {
				HeapUsed *float64 `json:"heap_used_in_bytes"`
				HeapMax  *float64 `json:"heap_max_in_bytes"`
			} `json:"mem"`
			GC struct {
				Collectors map[string]struct {
					Count  *float64 `json:"collection_count"`
					TimeMS *float64 `json:"collection_time_in_millis"`
				} `json:"collectors"`
			} `json:"gc"`
		} `json:"jvm"`
		Indices struct {
			Indexing struct {
				Total  *float64 `json:"index_total"`
				TimeMS *float64 `json:"index_time_in_millis"`
			} `json:"indexing"`
			Search struct {
				Total  *float64 `json:"query_total"`
				TimeMS *float64 `json:"query_time_in_millis"`
			} `json:"search"`
			QueryCache struct {
				Hit  *float64 `json:"hit_count"`
				Miss *float64 `json:"miss_count"`
			} `json:"query_cache"`
			Segments struct {
				Count  *float64 `json:"count"`
				Memory *float64 `json:"memory_in_bytes"`
			} `json:"segments"`
		} `json:"indices"`
	} `json:"nodes"`
}

// ServerStats sums GET _nodes/stats/jvm,indices across nodes. Figures no
// node reports are absent from the map.
func (t *Target) ServerStats(ctx context.Context) (map[string]float64, error) {
	var ns nodeStats
	if _, err := t.call(ctx, http.MethodGet, "/_nodes/stats/jvm,indices", "", nil, "", false, &ns); err != nil {
		return nil, err
	}
	out := map[string]float64{"nodes": float64(len(ns.Nodes))}
	add := func(name string, v *float64, scale float64) {
		if v != nil {
			out[name] += *v * scale
		}
	}
	for _, n := range ns.Nodes {
		add("jvm_heap_used_bytes", n.JVM.Mem.HeapUsed, 1)
		add("jvm_heap_max_bytes", n.JVM.Mem.HeapMax, 1)
		for _, gen := range []string{"young", "old"} {
			if c, ok := n.JVM.GC.Collectors[gen]; ok {
				add("jvm_gc_"+gen+"_collections_total", c.Count, 1)
				add("jvm_gc_"+gen+"_collection_seconds_total", c.TimeMS, 1e-3)
			}
		}
		ix := n.Indices
		add("indexing_index_total", ix.Indexing.Total, 1)
		add("indexing_index_time_seconds_total", ix.Indexing.TimeMS, 1e-3)
		add("search_query_total", ix.Search.Total, 1)
		add("search_query_time_seconds_total", ix.Search.TimeMS, 1e-3)
		add("query_cache_hit_total", ix.QueryCache.Hit, 1)
		add("query_cache_miss_total", ix.QueryCache.Miss, 1)
		add("segments_count", ix.Segments.Count, 1)
		add("segments_memory_bytes", ix.Segments.Memory, 1)
	}
	return out, nil
}
