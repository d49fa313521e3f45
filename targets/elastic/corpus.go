package elastic

import (
	"encoding/json"

	"github.com/soakd/soakd/scenarios"
)

// prepareCorpus notes a corpus scenario: its documents are indexed as
// they are (no title/body of the built-in search documents) and searches
// query its record.query.from fields.
func (t *Target) prepareCorpus(sc *scenarios.Scenario) {
	t.corpus = sc != nil && sc.HasCorpus()
	t.searchFields = nil
	if t.corpus && len(sc.SearchFields()) > 0 {
		t.searchFields, _ = json.Marshal(sc.SearchFields())
	}
}

// queryFields is the JSON array of the fields a search queries.
func (t *Target) queryFields() []byte {
	if t.searchFields != nil {
		return t.searchFields
	}
	return []byte(`["title","body"]`)
}

// corpusIndexBody maps id (keyword), num (long) and the query fields
// (text); the corpus's other fields are mapped as Elasticsearch's
// dynamic mapping sees them.
func (t *Target) corpusIndexBody(sc *scenarios.Scenario) []byte {
	props := map[string]map[string]string{IDField: {"type": "keyword"}, NumField: {"type": "long"}}
	for _, f := range sc.SearchFields() {
		props[f] = map[string]string{"type": "text"}
	}
	body := map[string]any{"mappings": map[string]any{"properties": props}}
	settings := map[string]int{}
	if t.shards > 0 {
		settings["number_of_shards"] = t.shards
	}
	if t.replicas != nil {
		settings["number_of_replicas"] = *t.replicas
	}
	if len(settings) > 0 {
		body["settings"] = settings
	}
	b, _ := json.Marshal(body)
	return b
}
