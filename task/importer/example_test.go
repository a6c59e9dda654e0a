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

// Parse reads what it can and says what it could not carry over.
func ExampleParse() {
	plans := []byte("## Phase 1: Board\n\n" +
		"- [ ] 1.1: Columns `cc:未着手` [lane:frontend]\n" +
		"- [ ] 1.2: Old exporter `cc:不要`\n" +
		"- [ ] 1.3: Drag and drop `cc:someday` depends:1.1,0.9\n")
	res, err := importer.Parse(importer.FormatPlansMD, "Plans.md", plans)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, pt := range res.Plan.Tasks() {
		fmt.Printf("%s %-5s %s %v\n", pt.Task.ID, pt.Task.Status, pt.Task.Title, pt.Task.Tags)
	}
	for _, w := range res.Warnings {
		fmt.Println("warning:", w)
	}
	// Output:
	// 1.1 todo  Columns [lane:frontend]
	// 1.2 done  Old exporter []
	// 1.3 todo  Drag and drop []
	// warning: Plans.md:4:1: status: marked cc:不要: not to be done; imported as done so it does not run
	// warning: Plans.md:5:27: status: unknown status marker "cc:someday"; taken as todo
	// warning: Plans.md:5:1: depends: task "0.9" is not in the file (archived, so taken as done); dependency dropped
}
