package importer_test

import (
	"fmt"

	"github.com/harnish/harnish/task/importer"
)

func ExamplePlansMD() {
	plans := []byte("# Plans\n\n" +
		"## Phase 1: CSV export\n\n" +
		"| Task | 内容 | DoD | Depends | Status |\n" +
		"|------|------|-----|---------|--------|\n" +
		"| 1.1 | ExportCSV in the invoice service | `go test ./internal/invoice/...` | - | cc:完了 |\n" +
		"| 1.2 | GET /invoices.csv | header row matches the spec | 1.1 | cc:WIP |\n\n" +
		"## Phase 2: Polish\n\n" +
		"- [ ] Localise column headers `cc:TODO`\n")
	plan, err := importer.PlansMD("Plans.md", plans)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, pt := range plan.Tasks() {
		t := pt.Task
		fmt.Printf("%s/%s %-5s %s\n", pt.Phase.ID, t.ID, t.Status, t.Title)
		for _, c := range t.Acceptance {
			switch c.Kind() {
			case "run":
				fmt.Printf("    run %q\n", c.Run)
			case "sh":
				fmt.Printf("    sh %q\n", c.Sh)
			case "manual":
				fmt.Printf("    manual %q\n", c.Manual)
			}
		}
	}
	// Output:
	// phase-1/1.1 done  ExportCSV in the invoice service
	//     run ["go" "test" "./internal/invoice/..."]
	// phase-1/1.2 doing GET /invoices.csv
	//     manual "header row matches the spec"
	// phase-2/phase-2-1 todo  Localise column headers
}
