// Package seed drafts a harnish plan from a PRD: an agent (any
// [executor.Executor]) reads the PRD and the repository and writes the plan;
// seed validates the draft strictly and feeds every problem back to the
// agent, round after round, until the plan is valid or the rounds run out.
// Only then is it shown for approval and written.
//
// The agent is asked to follow the harnish engine's seeding rules: phases
// ordered data, then logic, then UI, then integration tests; one task is
// one file, one function, one test or one config; the acceptance criteria
// come from the PRD's test section; the guardrails the host found for the
// PRD's tags are in the prompt. Beyond what [task.Parse] checks (the schema,
// unknown fields at file:line:col, IDs, dependencies), a task whose
// acceptance has no check that runs (only manual items, or none) is
// refused: a task is not seeded without executable criteria.
//
// [Draft] does the drafting; the CLI's "harnish plan --prd FILE" is a thin
// layer over it that asks for approval and writes the file.
package seed
