package metrics_test

import (
	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/metrics"
)

func init() { metrics.SetNeedTool(testutil.NeedTool) }
