package capture

import (
	"testing"

	"github.com/soakd/soakd/scenarios"
)

// The memory bound (scenarios) counts a capture's index at this
// package's figure.
func TestEntryBytesIsTheBounds(t *testing.T) {
	if EntryBytes != scenarios.CaptureEntryBytes || IndexBytes(1000) != 1000*scenarios.CaptureEntryBytes {
		t.Fatalf("capture.EntryBytes %d, scenarios.CaptureEntryBytes %d", EntryBytes, scenarios.CaptureEntryBytes)
	}
}
