package main

import (
	"testing"

	"github.com/soakd/soakd/internal/testutil"
)

// syncBuf is a writer safe for concurrent goroutines.
type syncBuf = testutil.SyncBuffer

func httpGet(t *testing.T, url string) string {
	t.Helper()
	return testutil.HTTPGet(t, url)
}
