package scenarios

import (
	"reflect"
	"testing"
)

// TestSearchMixCatalogAligned: the shipped search-mix scenarios run the
// same records, keyspace, phases, mixes and SLOs on every store, and the
// rate files use the study's 10% update mix.
func TestSearchMixCatalogAligned(t *testing.T) {
	for _, variant := range []string{"search-mix", "search-mix-250", "search-mix-6000"} {
		var first *Scenario
		for _, store := range []TargetKind{KindRedis, KindMongo, KindElastic} {
			sc, err := LoadFile("../scenarios/" + string(store) + "-" + variant + ".yaml")
			if err != nil {
				t.Fatal(err)
			}
			if sc.Target.Kind != store || !sc.Uses(OpSearch) {
				t.Errorf("%s: kind %q, searches %v", sc.File, sc.Target.Kind, sc.Uses(OpSearch))
			}
			if variant != "search-mix" {
				p := sc.Phases[len(sc.Phases)-1]
				want := map[string]float64{"search": 58.5, "read": 31.5, "update": 10}
				if !reflect.DeepEqual(p.Mix, want) {
					t.Errorf("%s: mix %v, want the study's 10%% update mix %v", sc.File, p.Mix, want)
				}
			}
			if first == nil {
				first = sc
				continue
			}
			if !reflect.DeepEqual(sc.Record, first.Record) || !reflect.DeepEqual(sc.Keyspace, first.Keyspace) ||
				!reflect.DeepEqual(sc.Phases, first.Phases) || !reflect.DeepEqual(sc.SLO, first.SLO) {
				t.Errorf("%s differs from %s in records, keyspace, phases or SLOs:\n%+v %+v\n%+v %+v",
					sc.File, first.File, sc.Record, sc.Keyspace, first.Record, first.Keyspace)
			}
		}
	}
	sc, err := LoadFile("../scenarios/redis-search-mix-250.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if r := sc.Phases[len(sc.Phases)-1].Rate; r != 250 {
		t.Errorf("250 file runs at %v ops/s", r)
	}
}
