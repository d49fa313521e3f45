package metrics

import "testing"

// needTool is internal/testutil.NeedTool, set by tools_ext_test.go: an
// external test package may import testutil, which imports targets,
// which imports rundir, which imports metrics (a cycle for this one).
var needTool func(t testing.TB, names ...string) string

// SetNeedTool sets needTool (tools_ext_test.go).
func SetNeedTool(f func(t testing.TB, names ...string) string) { needTool = f }
