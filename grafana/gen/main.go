// Command gen writes soakd's Grafana dashboards (package grafana) as
// JSON: go run ./grafana/gen -out grafana/dashboards.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/soakd/soakd/grafana"
)

func main() {
	out := flag.String("out", "grafana/dashboards", "directory to write the dashboard JSON files to")
	flag.Parse()
	if err := grafana.WriteAll(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
