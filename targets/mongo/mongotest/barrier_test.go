package mongotest

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/targets"
	soakmongo "github.com/soakd/soakd/targets/mongo"
)

// TestBarrier: n shards, each with its own client, arrive at staggered
// times; none returns before the last arrives. The counter lives in
// soakd_barriers of the scenario's database. N-1 of N arrivals time out.
func TestBarrier(t *testing.T) {
	f := startFerret(t, "127.0.0.1:0", t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	key := "soakd:barrier:run-1:kv:1"
	const n = 4
	testutil.StaggeredBarrier(t, ctx, func() targets.Barrier { return open(t, testURL(f)).(targets.Barrier) }, key, n, 150*time.Millisecond, 20*time.Second)
	coll := direct(t, f.uri).Database().Collection(soakmongo.BarrierCollection)
	var doc struct {
		N int `bson:"n"`
	}
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: key}}).Decode(&doc); err != nil || doc.N != n {
		t.Fatalf("barrier document n=%d, %v", doc.N, err)
	}

	tg := open(t, testURL(f)).(targets.Barrier)
	if got, err := tg.Arrived(ctx, "soakd:barrier:none"); got != 0 || err != nil {
		t.Fatalf("Arrived without a document = %d, %v", got, err)
	}
	// Simultaneous first arrivals race on the upsert; all must count.
	key2 := "soakd:barrier:run-1:kv:2"
	var wg2 sync.WaitGroup
	for i := 0; i < 2; i++ {
		b := open(t, testURL(f)).(targets.Barrier)
		wg2.Add(1)
		go func() {
			defer wg2.Done()
			if _, err := b.Arrive(ctx, key2); err != nil {
				t.Error(err)
			}
		}()
	}
	wg2.Wait()
	err := targets.WaitBarrier(ctx, tg, key2, targets.BarrierWait{N: 3, Timeout: 400 * time.Millisecond})
	if err != nil {
		t.Fatalf("third of three: %v", err)
	}
	err = targets.WaitBarrier(ctx, tg, "soakd:barrier:run-1:kv:3", targets.BarrierWait{N: 2, Timeout: 400 * time.Millisecond})
	if !errors.Is(err, targets.ErrBarrierTimeout) || !strings.Contains(err.Error(), "1 of 2 shards arrived") {
		t.Fatalf("timeout: %v", err)
	}
}
