package elastic

import (
	"fmt"
	"slices"
	"strings"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

func init() {
	targets.Register(string(scenarios.KindElastic), targets.Adapter{
		Open: Open, Schema: clientSchema, Order: 40,
		URLSchemes: []string{"http", "https"}, SchemeHint: "http(s)://",
		DefaultMaxBatch: DefaultMaxBatch, Family: Family,
		Title: "Elasticsearch", Help: "Elasticsearch (and OpenSearch)",
	})
}

// ClientConfig is the elastic adapter's own target.client options (the
// shared ones are scenarios.ClientCommon).
type ClientConfig struct {
	Refresh       Refresh `yaml:"refresh,omitempty"`        // false | wait_for | true ("" = false)
	Database      string  `yaml:"database,omitempty"`       // index name prefix: <database>-<collection>
	Collection    string  `yaml:"collection,omitempty"`     // index name (default DefaultIndex)
	IndexShards   int     `yaml:"index_shards,omitempty"`   // number_of_shards of an index soakd creates
	IndexReplicas *int    `yaml:"index_replicas,omitempty"` // number_of_replicas of an index soakd creates
}

var clientSchema = targets.ClientSchema[ClientConfig]{Check: checkClient}

func checkClient(_ scenarios.Target, c *ClientConfig) []scenarios.FieldError {
	var errs []scenarios.FieldError
	if r := c.Refresh; r != "" && !slices.Contains(Refreshes, r) {
		errs = append(errs, scenarios.FieldError{Path: "target.client.refresh", Msg: "must be false, true or wait_for"})
	}
	if ix := c.index(); ix != strings.ToLower(ix) || strings.ContainsAny(ix, `\/*?"<>| ,#:`) {
		path := "target.client.collection"
		if c.Collection == "" {
			path = "target.client.database"
		}
		errs = append(errs, scenarios.FieldError{Path: path, Msg: fmt.Sprintf("index name %q must be lower case without \\ / * ? \" < > | space , # :", ix)})
	}
	return errs
}

// index is the index name the options give.
func (c *ClientConfig) index() string {
	ix := c.Collection
	if ix == "" {
		ix = DefaultIndex
	}
	if c.Database != "" {
		ix = c.Database + "-" + ix
	}
	return ix
}

// Refresh is when Elasticsearch makes writes visible to search:
// client.refresh ("" means false).
type Refresh string

// Refresh settings.
const (
	RefreshFalse   Refresh = "false"
	RefreshWaitFor Refresh = "wait_for"
	RefreshTrue    Refresh = "true"
)

// Refreshes lists the refresh settings in the order messages name them.
var Refreshes = []Refresh{RefreshFalse, RefreshWaitFor, RefreshTrue}
