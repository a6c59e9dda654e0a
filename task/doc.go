// Package task is the plan model of harnish: a plan of phases, each a list of
// tasks with acceptance criteria, the budgets that bound the work and the
// components that carry it out. It loads plans strictly from YAML or JSON
// ([Load], [Parse]) and checks what they mean ([Plan.Validate]); the loop
// takes a valid [Plan] and works through it task by task, phase by phase.
//
// The types themselves (Plan, Phase, Task, Check, Budget, Problem and the
// rest), their methods and constants live in package
// [github.com/harnish/harnish/task/model], which does no I/O, so that the
// loop's decision core can use them without this package's file readers.
// Package task names each of them here as an alias (task.Plan is model.Plan),
// so code that reads plans writes task.Plan and never needs the model
// package. Package task depends on no harnish package outside task/.
//
// # Problems
//
// Every error about a plan's content is a [Problem] naming file, line, column
// and field path, formatted as
//
//	plan.yaml:12:9: phases[0].tasks[1].budget.attempts: 0 is out of range 1..100
//
// and every problem found is reported at once, as [Problems]: those of the
// schema together with those of the meaning of what did decode. A problem's
// class is a sentinel for [errors.Is]: [ErrSyntax], [ErrSchema],
// [ErrUnsupportedVersion], [ErrCycle], [ErrNoAcceptance], [ErrTooLarge]. A
// warning (only a task without acceptance criteria, today) does not stop
// [Parse]; it shows in [Plan.Validate] with Warning set. A message repeats
// only the first bytes of a long value, and a plan may be at most
// [MaxPlanSize] bytes.
//
// Loading is strict: an unknown field, a duplicate key, a value of the wrong
// type (a number where a string belongs says "quote it"), a bad duration, a
// second YAML document or data after the JSON value are errors. A file named
// *.json is read as JSON, with JSON's syntax; anything else as YAML 1.2 (one
// document; anchors and aliases allowed, merge keys not). Both forms share one
// schema, whose keys are the json tags of the model's types.
//
// # Schema
//
// Top level ([Plan]):
//
//   - version (required): the schema version, 1, "1" or a semver such as
//     "1.0"; its major must be [SchemaMajor]. A newer major is reported alone,
//     as [ErrUnsupportedVersion], before any other field is read.
//   - name (required): the plan's name, an ID (see below); used in log paths.
//   - budget: run-wide limits, a [Budget] (below).
//   - executor: the [Component] that carries out tasks: kind codex, claude,
//     acp, command or plugin. Absent: the host chooses. An agent CLI takes
//     model, args (more arguments; none that turn its guards off, such as
//     --dangerously-…), for codex sandbox (workspace-write, the default, or
//     danger-full-access), and for claude permission_mode (default,
//     acceptEdits, plan, bypassPermissions) and allowed_tools.
//   - debugger: a [Component] of kind command or plugin that investigates a
//     failure that repeated. Absent: no debugger.
//   - reviewer: a [Component] of kind command or plugin that reviews each
//     change whose checks passed. Absent: no review.
//   - advisor: an [Advisor], a program (kind and argv, as a debugger's)
//     consulted when (when: a list of high-risk, before the first attempt
//     of a task with risk high; repeat, after the second failure with the
//     same cause; plateau, before a review plateau would escalate; absent:
//     all three). It answers PLAN (advice that opens the next prompt),
//     CORRECTION (a fix for the re-run) or STOP (the run ends escalated
//     with its reason). repeat: alongside (the default: asked before the
//     debugger) or instead (in the debugger's place: PLAN or CORRECTION
//     buy the one more attempt a root cause buys). Absent: no advisor.
//   - guardrails: packages (a mapping of ecosystem, such as go, npm or pypi,
//     to the packages an agent may install), protected (paths, relative to
//     the working tree, that no action may delete or overwrite),
//     max_changed_lines (the most lines one file may change before a soft
//     warning, 1..1000000, default 100) and tdd, the test-first rule ([TDD]):
//     level (off, soft or hard; default soft), patterns (a mapping of source
//     extension to test file names with {stem}, such as .py: ['test_{stem}.py'],
//     replacing that extension's defaults), roots (test directory names,
//     replacing test, tests and __tests__) and exempt (patterns of files that
//     need no test, added to the defaults: "dir/" a directory anywhere, a
//     pattern with "/" a glob on the path, any other a glob on the name).
//   - parallel: how many tasks of a phase may run at once, when depends_on
//     allows (0..64; 0 and 1 mean one after another). Two tasks that may
//     run at the same time must not declare the same file in files (or one
//     a directory holding the other's): their changes would conflict for
//     certain, so that is an error until one depends on the other.
//   - context: the project's context files every prompt carries, paths or
//     globs relative to the working tree (AGENTS.md, docs/*.md), read at
//     each attempt, each at most 32 KiB; a prompt over its budget leaves
//     them out after experience and handoffs, before the task's own
//     sections. An entry that names no file is a warning of harnish
//     validate and run.
//   - stuck: the thresholds of the stuck rules ([Stuck]), each 0 for its
//     default: no_progress (failed attempts in a row that changed nothing,
//     default 2), alternation (failed attempts in a row whose fingerprints
//     alternate between two, default 4), repeated_command (the same command
//     with the same result in a row within an attempt, default 5; commands
//     that wait, such as sleep or a CI watch, never count) and silent_turns
//     (agent turns in a row without a tool call, default 4); off: true
//     turns them off. A stuck attempt fails with kind stuck and its pattern
//     as fingerprint, counts as an attempt, and the next prompt says what
//     was repeated; one within an attempt ends it early.
//   - pacing: a wait before each task starts but the first (1s..24h), for
//     runs that wait on CI or a rate limit; a stop during it costs no
//     attempt, and a resume goes on.
//   - phases (required, at least one): the phases, run in order.
//
// A phase ([Phase]) has id (required, unique among phases), title, parallel
// (overriding the plan's), milestone and tasks (required, at least one).
// The milestone gate waits until every task of the phase has ended. A milestone ([Milestone]) has gate (a
// boolean; absent means true, except after the last phase, whose end
// completes the run) and manual (a checklist a person confirms at the gate).
//
// A task ([Task]) has:
//
//   - id (required, unique in the plan) and title (required);
//   - objective: what to achieve, in prose;
//   - files: the declared scope, paths relative to the working tree that stay
//     inside it;
//   - depends_on: IDs of tasks of the same or an earlier phase, no task
//     twice, not itself, and no cycles (reported spelled out, as
//     "dependency cycle: T1 -> T3 -> T1");
//   - acceptance: the checks that decide the task is done. Without any the
//     plan still loads, with an [ErrNoAcceptance] warning, and the loop
//     escalates the task instead of starting it;
//   - tags: labels used to find experience recorded by earlier runs;
//   - budget: attempts and task_timeout, overriding the plan's; the run-wide
//     fields are errors here;
//   - status: todo (the default), doing or done, as the plan's author records it;
//   - risk: low (the default) or high, which has the advisor consulted
//     before the task's first attempt.
//
// A check ([Check]) has exactly one of run (an argv, run without a shell),
// sh (a script for "sh -c"), manual (an item a person confirms; it never
// runs), gotest, cmake or plugin (the name of a verifier plugin in the
// plugin manifest, started for the run, that checks the tree its own way:
// plugin: msvc), and for all but manual optionally dir (relative to the
// working tree) and timeout (a duration, 1s..24h; absent: the verifier's
// default).
//
// gotest ([GoTestCheck]) runs go test -json in dir and counts the tests; it
// fails when any fails or fewer than min_tests ran. It is a mapping, {} for
// the defaults, or in short a single package pattern (gotest: ./calc/...):
//
//   - packages: package patterns; absent: ./... ;
//   - flags: flags for go test, e.g. [-race, -count=1] (-json is always
//     passed; -c, -o, -exec and -list are errors, since they run no tests);
//   - min_tests: the fewest tests, subtests included, that must run,
//     1..1000000, default 1.
//
// cmake ([CMakeCheck]) configures the CMake project whose source directory is
// dir, builds it, requires ctest --show-only=json-v1 to list at least one test
// and runs ctest --output-on-failure. A mapping, {} for the defaults:
//
//   - preset: a configure preset of CMakePresets.json; the build and test
//     presets of the same name are used too. Absent: no presets;
//   - build_dir: the build tree relative to dir, only without a preset;
//     absent: build;
//   - config: the configuration for multi-config generators, e.g. Release;
//   - compiler_id: the CMAKE_CXX_COMPILER_ID the build tree must report,
//     e.g. GNU, Clang or MSVC.
//
// A component ([Component]) has kind (required), argv (the program and its
// arguments; required for, and only for, kind command), env (variables added
// to its environment), plugin (a plugin name from the manifest; required for,
// and only for, kind plugin) and model (only for codex and claude).
//
// A budget ([Budget]) has, with defaults and bounds:
//
//   - attempts: per task, 1..100, default 3 ([DefaultAttempts]);
//   - task_timeout: a task's wall time over all its attempts, 1s..24h,
//     default 30m;
//   - cycles: attempts over the whole run, 1..100000, default 100;
//   - run_timeout: the run's wall time, 1s..720h, default no cap;
//   - tokens: tokens the executor reports over the run, >= 0, 0 = no cap;
//   - cost_usd: cost the executor reports over the run, >= 0, 0 = no cap.
//
// An absent field inherits (on a task) or takes its default (on the plan);
// [Plan.TaskBudget] resolves a task's effective budget. A field that is
// written must be in bounds: attempts: 0 or task_timeout: 0s is an error, not
// a default. Durations use Go syntax: 90s, 30m, 1h30m.
//
// IDs (plan name, phase and task IDs) are 1 to 64 letters, digits, '.', '_'
// and '-', starting with a letter or digit, so they are safe in file names
// and commit messages.
//
// # Example
//
//	version: 1
//	name: add-division
//	budget: {attempts: 3, task_timeout: 30m, cycles: 50, cost_usd: 20}
//	executor: {kind: codex}
//	reviewer: {kind: command, argv: [./tools/review.sh]}
//	guardrails:
//	  packages: {go: [github.com/google/go-cmp]}
//	  protected: [go.mod]
//	  max_changed_lines: 200
//	  tdd: {level: hard, exempt: [tools/]}
//	phases:
//	  - id: api
//	    title: Division API
//	    milestone: {manual: ["README example renders"]}
//	    tasks:
//	      - id: T1
//	        title: divide() with zero check
//	        objective: Return an error when dividing by zero.
//	        files: [calc/calc.go, calc/calc_test.go]
//	        acceptance:
//	          - run: [go, test, ./calc/...]
//	          - sh: "go vet ./... && test -f calc/calc.go"
//	          - gotest: {packages: [./calc/...], flags: [-race]}
//	        tags: [calc]
//	        budget: {attempts: 5, task_timeout: 10m}
//	  - id: docs
//	    title: Documentation
//	    tasks:
//	      - id: T2
//	        title: Document divide()
//	        depends_on: [T1]
//	        acceptance:
//	          - manual: The doc comment names the zero case.
package task
