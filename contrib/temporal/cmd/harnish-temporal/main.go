// Command harnish-temporal runs harnish plans on a Temporal server: the
// same plan, the same rules and the same exit codes as "harnish run", with
// the run's state in a durable workflow that survives its workers and its
// server.
//
//	harnish-temporal worker [--address ADDR] [--namespace NS] [--task-queue Q] [--hook PROGRAM]
//	harnish-temporal run [--address ADDR] [--dir DIR] [--id ID] [--yes] [--detach] [--worker] PLAN
//	harnish-temporal approve [--address ADDR] [--reject] [--note TEXT] [--by NAME] ID
//	harnish-temporal status [--address ADDR] [--json] ID
//
// A worker takes the workflow's tasks and the activities of runs whose
// working tree it has (run --dir, the same path on every worker of the
// queue). run starts a run and, unless --detach, waits for it and exits as
// "harnish run" would: 0 completed, 2 needs a person, 3 stopped by a hard
// guardrail, 4 budget exceeded, 130 cancelled, 1 an error. --worker also
// runs a worker in the same process, for one machine. A milestone gate
// waits for "approve"; "status --json" prints what "harnish status --json"
// prints for a run of the CLI.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/harnish/harnish/contrib/temporal/internal/host"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := host.Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
