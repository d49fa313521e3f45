package datagen_test

// datagen's tests render the shipped stores' custom-op forms: the stores
// link their families (scenarios.Link), as in soakd itself.
import (
	_ "github.com/soakd/soakd/targets/elastic"
	_ "github.com/soakd/soakd/targets/embedded"
	_ "github.com/soakd/soakd/targets/mongo"
	_ "github.com/soakd/soakd/targets/redis"
)
