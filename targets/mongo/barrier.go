package mongo

import (
	"context"
	"errors"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"github.com/soakd/soakd/targets"
)

// BarrierCollection holds the shards' phase barriers, one document per
// barrier ({_id: key, n: arrivals, created: time}), in the scenario's
// database. Drop it at will between runs.
const BarrierCollection = "soakd_barriers"

var _ targets.Barrier = (*Target)(nil)

func (t *Target) barriers() *mongo.Collection {
	return t.coll.Database().Collection(BarrierCollection)
}

type barrierDoc struct {
	N int `bson:"n"`
}

// Arrive counts this shard in at barrier key: findOneAndUpdate with $inc
// and upsert, returning the document after the update. Concurrent first
// arrivals racing on the upsert's unique _id get a duplicate key error
// from the server; the arrival is then retried as a plain update.
func (t *Target) Arrive(ctx context.Context, key string) (int, error) {
	ctx, cancel := t.timeouts.Context(ctx, true)
	defer cancel()
	upd := bson.D{
		{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}},
		{Key: "$setOnInsert", Value: bson.D{{Key: "created", Value: time.Now().UTC()}}},
	}
	opts := options.FindOneAndUpdate().SetUpsert(true).SetReturnDocument(options.After)
	var d barrierDoc
	var err error
	for try := 0; try < 3; try++ {
		err = t.barriers().FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: key}}, upd, opts).Decode(&d)
		if !mongo.IsDuplicateKeyError(err) {
			break
		}
	}
	if err != nil {
		return 0, t.scrub(err)
	}
	return d.N, nil
}

// Arrived reads barrier key's counter (findOne); no document is 0.
func (t *Target) Arrived(ctx context.Context, key string) (int, error) {
	ctx, cancel := t.timeouts.Context(ctx, false)
	defer cancel()
	var d barrierDoc
	err := t.barriers().FindOne(ctx, bson.D{{Key: "_id", Value: key}}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return 0, nil
	}
	if err != nil {
		return 0, t.scrub(err)
	}
	return d.N, nil
}
