package main

import (
	"io"
	"net/http"
	"testing"

	"github.com/soakd/soakd/internal/testutil"
)

// syncBuf is a writer safe for concurrent goroutines.
type syncBuf = testutil.SyncBuffer

func httpGet(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
