package redis

import (
	"context"
	"strings"
	"testing"
)

func TestLoggerRedacts(t *testing.T) {
	var got []string
	l := Logger{Log: func(m string) { got = append(got, m) }}
	l.Printf(context.Background(), "redis: failed to dial %s: %v\n", "redis://hunter2@10.0.0.1:6379/0?password=s3cret", "refused")
	if len(got) != 1 {
		t.Fatalf("lines %q", got)
	}
	if strings.Contains(got[0], "hunter2") || strings.Contains(got[0], "s3cret") || strings.HasSuffix(got[0], "\n") {
		t.Fatalf("line %q", got[0])
	}
	if !strings.Contains(got[0], "redis://xxxxx@10.0.0.1:6379/0?password=xxxxx") {
		t.Fatalf("line %q", got[0])
	}
}
