package mongo

import (
	"fmt"
	"strings"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

func init() {
	targets.Register(string(scenarios.KindMongo), targets.Adapter{
		Open: Open, Schema: clientSchema, Order: 30,
		URLSchemes: []string{"mongodb", "mongodb+srv"}, SchemeHint: "mongodb://",
		DefaultMaxBatch: DefaultMaxBatch, Family: Family,
		Title: "MongoDB", Help: "MongoDB (and FerretDB)",
	})
}

// ClientConfig is the mongo adapter's own target.client options (the
// shared ones are scenarios.ClientCommon); they override the URI's.
type ClientConfig struct {
	ReadPreference ReadPreference `yaml:"read_preference,omitempty"` // "" = the URI's, else primary
	WriteConcern   string         `yaml:"write_concern,omitempty"`   // majority | N, optionally ,j (ParseWriteConcern)
	Database       string         `yaml:"database,omitempty"`        // default DefaultDatabase
	Collection     string         `yaml:"collection,omitempty"`      // default DefaultCollection
}

var clientSchema = targets.ClientSchema[ClientConfig]{Check: checkClient}

func checkClient(_ scenarios.Target, c *ClientConfig) []scenarios.FieldError {
	var errs []scenarios.FieldError
	if rp := c.ReadPreference; rp != "" {
		if p, err := ParseReadPreference(string(rp)); err != nil {
			errs = append(errs, scenarios.FieldError{Path: "target.client.read_preference", Msg: err.Error()})
		} else {
			c.ReadPreference = p
		}
	}
	if wc := c.WriteConcern; wc != "" {
		if _, err := ParseWriteConcern(wc); err != nil {
			errs = append(errs, scenarios.FieldError{Path: "target.client.write_concern", Msg: strings.TrimPrefix(err.Error(), fmt.Sprintf("client.write_concern %q: ", wc))})
		}
	}
	return errs
}

// ReadPreference is which members serve reads: client.read_preference.
// Like the driver, it is read without regard to case.
type ReadPreference string

// MongoDB read preferences.
const (
	ReadPrimary            ReadPreference = "primary"
	ReadPrimaryPreferred   ReadPreference = "primaryPreferred"
	ReadSecondary          ReadPreference = "secondary"
	ReadSecondaryPreferred ReadPreference = "secondaryPreferred"
	ReadNearest            ReadPreference = "nearest"
)

// ReadPreferences lists the read preferences.
var ReadPreferences = []ReadPreference{ReadPrimary, ReadPrimaryPreferred, ReadSecondary, ReadSecondaryPreferred, ReadNearest}

// ParseReadPreference returns the read preference s names, in any case,
// spelt as its constant, or an error in the driver's words.
func ParseReadPreference(s string) (ReadPreference, error) {
	for _, p := range ReadPreferences {
		if strings.EqualFold(s, string(p)) {
			return p, nil
		}
	}
	return "", fmt.Errorf("unknown read preference %v", s)
}
