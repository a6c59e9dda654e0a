// Package importer converts the plans and progress files of peer tools into a
// [task.Plan], keeping what each says is done, in progress or still to do
// ([task.StatusDone], [task.StatusDoing], [task.StatusTodo]), so a project can
// move to harnish mid-way without redoing finished work.
//
// [Import] reads a file or a directory (see [Dir] for what it looks for) and
// returns a [Result]: the plan, the format read, and the [Warning]s, each
// naming file, line and field, for what the plan does not hold as the source
// says it. [Parse] and [ParseStepTree] do the same for bytes and an [fs.FS];
// [ProgressFile], [StepTree], [PlansMD] and [Dir] return the plan alone.
//
// The peers read their files loosely, and so does this package: a field of
// the wrong type, an unknown status word or marker, a row without a title, a
// dependency on a task the file does not hold, a phase listed before its
// directory exists are warnings, and the rest of the file is imported. An
// error (an [*Error] wrapping [ErrFormat], "importer: file:line:col: field:
// message") is left for a file that cannot be parsed at all (malformed JSON,
// text that is not UTF-8, a step tree without its lists) or that holds no
// task; a file larger than [task.MaxPlanSize] is an error too, found after
// reading at most one byte more. Messages repeat only the first bytes of a
// long value, and at most 1000 warnings are kept.
//
// Every plan returned validates (Version "1", a name derived from the
// source, phase and task IDs made valid and unique, titles non-empty). What a
// plan cannot hold is repaired with a warning: a dependency that closes a
// cycle is dropped; phases are put after the phases their tasks depend on
// (dropping, when phases depend on each other both ways, the dependencies
// on a later phase); a path outside the working tree is left out of the
// scope, and one written from the repository's root ("/src/x.go") is made
// relative. Tasks whose source gives no acceptance criteria have none, which
// validation reports as a warning and the loop escalates. A criterion
// becomes a check that runs when it is plainly a command (the whole text one
// code span, or starting with "$ ", or a code span followed by "passes",
// "PASS", "が PASS" and the like; an argv when it has no shell syntax, an
// "sh" script otherwise) and a manual check otherwise.
//
// # Progress file (harnish-current-work.json)
//
// The progress file of the harnish engine (github.com/jazz1x/harnish,
// skills/impl/references/progress-template.md and task-schema.md): an object
// with "done", "doing" and "todo" (or the task schema's own "phases"), and
// "metadata" and "project".
//
//   - metadata.prd names the plan ("docs/prd-redis-cache.md" gives
//     "redis-cache"), else project.name; metadata.status.phase places the
//     doing task (a string status is allowed and ignored).
//   - done.phases and todo.phases are lists of phases, each {phase or id,
//     title, tasks}; phase 2 becomes ID "phase-2". A phase in several lists
//     is one phase: its done tasks, then the doing task, then its todo tasks.
//     A task listed twice (done and todo, an agent's slip) is imported once,
//     as its most advanced status, with a warning.
//   - A phase's objective goes into its tasks' objectives,
//     completion_condition and milestone.gate become the milestone's manual
//     checklist, milestone.requires_approval its gate, and
//     milestone_approved_at (the gate was passed) turns the gate off.
//   - A done phase with "compressed": true had its tasks archived: the
//     archive beside the file (harnish-progress-archive.jsonl) gives their
//     IDs, so later tasks' dependencies on them hold; without it one done
//     task "<phase>-archived" stands for them, and dependencies on archived
//     tasks are dropped with a warning.
//   - A task has id and title, and may have depends_on, files and
//     files_changed (the scope), acceptance_criteria and verification (the
//     checks), estimated_effort (a tag "effort:small|medium|large"; large
//     raises the task's time to 1h), tags, status, and what becomes its
//     objective: result, summary, guide (a string, or {objective, strategy,
//     target_files, reference, context}, target_files also joining the
//     scope), context {guide, scope, prd_reference}, guardrails,
//     prohibitions, current, last_action, next_action, blocker. The
//     project's guardrails and prohibitions are added to every task not done.
//   - Other fields are warnings; the run's history (issues, violations,
//     escalations) is one warning.
//
// # Step tree (phases/)
//
// The layout of the Codex step executor (github.com/cj0311/codex_harness_framework,
// scripts/execute.py): phases/index.json lists {"dir", "status"} entries
// (an optional "description" titles the phase), and phases/<dir>/index.json
// holds {"project", "phase", "steps"}, each step {"step", "name", "status",
// "summary", "error_message", "blocked_reason", "started_at"}. Each dir is
// a phase (ID the dir), each step a task (ID "<dir>-step<N>", title its
// name). A listed phase whose directory does not exist yet, or whose files
// cannot be read, is a warning and left out (the executor reads only the
// phase it runs). Status completed is done; error and
// blocked are doing (started, not finished); pending is to do, or doing when
// started_at is set, which is how the executor leaves a step it was cut off
// in; the words other tools write (done, in_progress, failed, skipped, ...)
// read too; a step's depends_on and files join the task, its timeout_seconds
// (or timeout_sec, at most a day) becomes the task's time, max_retries its
// attempts. The fields forks of the executor add and run are read as they
// read them: "verify" (a shell command run from the tree's root) and
// "success_metric" (its {run_dir} the step's runs/<run_dirs[0]>) become
// checks, "targets" and "tests" the scope (a trailing "/**" the
// directory), "spec", "contract" and "eval_command" the objective, "kind",
// "actions" and "domains" tags, "checkpoint" a manual check (a person
// approves the step; awaiting-review and rejected steps are in progress).
// The phases/ directory itself may be given,
// with or without the format. The optional phases/<dir>/step<N>.md, UTF-8 text, becomes the
// objective, followed by the summary, error or blocked reason; its YAML front
// matter may give depends_on (steps "2", "step2" or "<dir>/step2") and files.
// Under its "Acceptance Criteria" heading each list item is a criterion; a
// shell code block gives a check per command, or one "set -e" script when its
// lines depend on each other (a bare cd, export, source or assignment, control
// flow, a heredoc; "cd x && y" stands alone);
// a PowerShell, Python or Node block runs with pwsh, python3 or node; any
// other block is a manual check, with a warning. The plan is named after the
// first "project".
//
// # Plans.md
//
// The task list of claude-code-harness (github.com/Chachamaru127/claude-code-harness,
// templates/Plans.md.template and its own Plans.md), in any of its forms:
//
//	## Phase 2: Scheduled exports
//
//	| Task | 内容 | DoD | Depends | Status |
//	|------|------|-----|---------|--------|
//	| 2.1  | Nightly export job | (a) job_test passes, (b) `make e2e` | 1.2 | cc:WIP |
//
//	- [ ] T301: Localise column headers `cc:TODO` depends:T300 [lane:i18n]
//	  - DoD: `go test ./internal/i18n/...`
//
//	### Task 7.1 Invoice model cc:完了
//	- [x] `go test ./billing/...`
//
// Markers are read by the words they hold, as the peer reads them: cc:TODO,
// cc:未着手, pm:依頼中, pm:pending, [todo] are to do; cc:WIP, cc:WORK,
// cursor:WIP, [in_progress] are doing; cc:完了, cc:done, pm:確認済,
// pm:confirmed, cursor:完了 are done; cc:不要 and cc:withdrawn (not to be
// done), cc:retired, and deferred ones (cc:defer, DEFERRED), which the
// peer does not pick up, are done, with a warning, so they do not run;
// blocked is to do. An
// unknown marker is a warning and the checkbox decides. The status marker
// of a list item is its last one when only a date, a commit, a note or
// dependencies follow it, or one that opens the item; a marker elsewhere is
// only mentioned in the title. A list item is a task when it has a status
// marker, or a checkbox ("[x]" done, "[ ]" to do, or the status of the
// section it is in: Work/作業中, Plan/未着手, Done/完了 headings) and is not
// nested under a task. A heading with a marker is a task, unless tasks
// follow under it. Under a "DoD:"/"完了条件:" label or heading, and under a
// heading task, checklist items are criteria, of that task or else of the
// phase's milestone. A table is a task table when it has a Status column and
// a Task or 内容 column; an empty Status cell is the section's status or to
// do; a bar that splits a cell (outside a code span) is read back into it;
// the DoD cell splits into criteria at <br> and at "(a) ... (b) ...". A
// Status cell that opens with a marker has that status, whatever markers
// its note mentions ("cc:done [abc123] (WIP 9→0)"). When backticks do not
// pair and code spans would leave a row fewer cells than columns, the row
// is split at every bar, as the peer splits it. Rows that lost their
// header (after a "---") are read with the last task table's columns,
// with a warning. An ID cell's [P] tag is not part of the ID. A long
// 内容 is cut to its first sentence for the title and kept whole as the
// objective. [lane:...] and [tdd:...] tags become the task's tags. Headings
// are phases: the nearest heading named "Phase ..." above a task (other
// headings only group), else, when no heading is named so, the nearest
// heading; "Phase 2: ..." gets ID "phase-2".
// Fenced code, HTML comments, front matter and the list under the markers'
// legend (マーカー凡例, Legend) are skipped. Plans.md archives
// finished phases to other files, so a dependency on a task it does not hold
// is dropped with a warning. The plan is named from a "Project: name" line,
// else the first "# " title, else the file name. In a directory,
// plans/manifest.json's named plans are honoured: the one named in
// [Options].Plan, else the active one (.claude/state/active-plan.json), else
// the default; a warning names the plans not imported.
package importer
