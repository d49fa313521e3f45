package mongo

import (
	"testing"

	"go.mongodb.org/mongo-driver/bson"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// A corpus document is stored as the corpus gives it (plus _id and
// num), without the built-in search title and body; the text index
// covers record.query.from.
func TestCorpusDocument(t *testing.T) {
	tg := &Target{searchDocs: true, corpus: true}
	d := tg.document(&targets.Request{KeyNum: 7, Key: []byte("doc:p1"), Fields: []targets.Field{
		{Name: "id", Value: []byte("p1")}, {Name: "title", Value: []byte("red fox")}, {Name: "tags", Value: []byte(`["a"]`)},
	}})
	want := bson.D{{Key: "_id", Value: "doc:p1"}, {Key: "id", Value: "p1"}, {Key: "title", Value: "red fox"}, {Key: "tags", Value: `["a"]`}, {Key: "num", Value: int64(7)}}
	if len(d) != len(want) {
		t.Fatalf("document %v", d)
	}
	for i := range want {
		if d[i].Key != want[i].Key || d[i].Value != want[i].Value {
			t.Fatalf("document %v, want %v", d, want)
		}
	}
	sc := &scenarios.Scenario{Record: scenarios.Record{Source: "x.ndjson", Query: &scenarios.CorpusQuery{From: []string{"title", "body"}}}}
	if k := corpusTextKeys(sc); len(k) != 2 || k[0].Key != "title" || k[1].Key != "body" || k[0].Value != "text" {
		t.Fatalf("text index keys %v", k)
	}
}
