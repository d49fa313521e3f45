package mongo

import (
	"go.mongodb.org/mongo-driver/bson"

	"github.com/soakd/soakd/scenarios"
)

// corpusTextKeys is the text index of a corpus scenario: its
// record.query.from fields.
func corpusTextKeys(sc *scenarios.Scenario) bson.D {
	var keys bson.D
	for _, f := range sc.SearchFields() {
		keys = append(keys, bson.E{Key: f, Value: "text"})
	}
	return keys
}
