package report

// The report reads a capture back with its store's dialect, from the
// registry: the tests link the redis store, as the binary does.
import _ "github.com/soakd/soakd/targets/redis"
