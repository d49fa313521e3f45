package runpath

// The stores whose URL schemes the override and merge tests use: a
// --target URL selects its store through the registry they fill.
import (
	_ "github.com/soakd/soakd/targets/elastic"
	_ "github.com/soakd/soakd/targets/mongo"
	_ "github.com/soakd/soakd/targets/redis"
)
