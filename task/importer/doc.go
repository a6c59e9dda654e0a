// Package importer converts the plans and progress files of peer tools into a
// [task.Plan], keeping what each says is done, in progress or still to do
// ([task.StatusDone], [task.StatusDoing], [task.StatusTodo]), so a project can
// move to harnish mid-way without redoing finished work.
//
// Use [Dir] to import whatever a project directory holds, or the function for
// one format. Every plan returned validates (Version "1", a name derived from
// the source, phase and task IDs made valid and unique, titles non-empty);
// tasks whose source gives no acceptance criteria have none, which validation
// reports as a warning and the loop escalates. A criterion becomes a check
// that runs when it is plainly a command (the whole text one code span, or
// starting with "$ "; an argv when it has no shell syntax, an "sh" script
// otherwise) and a manual check otherwise.
//
// Errors about content wrap [ErrFormat] and are an [*Error] naming file, line,
// column and field; the messages start with "importer: ". Unknown fields in
// the JSON sources are ignored, since the formats evolve, but a known field of
// the wrong type is an error, as are malformed JSON and unknown statuses.
// A file larger than [task.MaxPlanSize] is an error too, found after reading
// at most one byte more; errors repeat only the first bytes of a long value.
//
// # Progress file (harnish-current-work.json)
//
// The progress file of the harnish Claude Code skill (github.com/jazz1x/harnish,
// skills/harnish/references/progress-template.md): an object with "metadata",
// "done", "doing" and "todo", all required.
//
//   - metadata.prd names the plan ("docs/prd-redis-cache.md" gives
//     "redis-cache"); metadata.status.phase places the doing task.
//   - done.phases and todo.phases are lists of {phase, title, tasks}; phase is
//     an integer (phase 2 becomes ID "phase-2") or a string. A phase in both
//     lists is one phase: its done tasks, then the doing task, then its todo
//     tasks. A done phase with "compressed": true had its tasks archived and
//     becomes one done task "<phase>-archived" with the compressed_summary.
//   - doing.task is null or one task; its phase is doing.task.phase, else
//     metadata.status.phase, else the one its ID names ("2-3" is in phase 2).
//   - A task has "id" and "title" (required strings) and may have depends_on,
//     files_changed (becoming Files), verification and acceptance_criteria
//     (becoming checks), result, context.guide, next_action and blocker
//     (becoming the objective).
//
// A dependency on a task the file does not hold is an error, unless the file
// has a compressed phase: then it names an archived task, which is done, and
// is dropped.
//
// # Step tree (phases/)
//
// The layout of the "harness_framework" step executor (scripts/execute.py):
// phases/index.json lists {"dir", "status"} entries (status pending,
// completed, error or blocked; an optional "description" titles the phase),
// and phases/<dir>/index.json holds {"project", "phase", "steps"}, each step
// {"step", "name", "status", "summary", "error_message", "blocked_reason",
// "started_at"}. Each dir is a phase (ID the dir), each step a task (ID
// "<dir>-step<N>", title its name). Status completed is done; error and
// blocked are doing (started, not finished); pending is to do, or doing when
// started_at is set, which is how the executor leaves a step it was cut off
// in. The optional phases/<dir>/step<N>.md, UTF-8 text, becomes the
// objective, followed by the summary, error or blocked reason; under its
// "Acceptance Criteria" heading each line of a shell code block is a command
// check and each list item a criterion. The plan is named after the first
// "project".
//
// # Plans.md
//
// The task list of claude-code-harness (github.com/Chachamaru127/claude-code-harness,
// templates/Plans.md.template and its own Plans.md), in either form:
//
//	## Phase 2: Scheduled exports
//
//	| Task | 内容 | DoD | Depends | Status |
//	|------|------|-----|---------|--------|
//	| 2.1  | Nightly export job | (a) job_test passes, (b) `make e2e` | 1.2 | cc:WIP |
//
//	- [ ] T301: Localise column headers `cc:TODO` depends:T300
//	  - DoD: `go test ./internal/i18n/...`
//
// Markers: cc:TODO, pm:requested, pm:依頼中, cursor:依頼中 are to do; cc:WIP is
// doing; cc:done, cc:完了, pm:approved, pm:確認済, cursor:確認済 are done;
// cc:blocked and blocked are to do (not done). Case does not matter; another
// cc:, pm: or cursor: marker is an error. A list item is a task when it has a
// marker in a code span, or a checkbox ("[x]" done, "[ ]" to do) and is not
// nested under a task; nested lines are the task's objective, or a criterion
// when labelled "DoD:" or "AC:". A table is a task table when it has a Status
// column and a Task or 内容 column; the DoD cell splits into criteria at <br>
// and at "(a) ... (b) ...". A long 内容 is cut to its first sentence for the
// title and kept whole as the objective. Headings are phases: those named
// "Phase ..." when any has tasks (deeper headings only group), else the
// nearest heading; "Phase 2: ..." gets ID "phase-2". Fenced code, HTML
// comments and front matter are skipped. Plans.md archives finished phases to
// other files, so a dependency on a task it does not hold is dropped. The plan
// is named from a "Project: name" line, else the first "# " title, else the
// file name.
package importer
