// Package model is harnish's plan model: the types a plan is made of (Plan,
// Phase, Task, Check, Budget, Component, Guardrails, ...), the rules that
// resolve them (Budget.Resolve, Plan.TaskBudget, Milestone.Gated) and the
// check of what a plan means (Plan.Validate), with its Problems. It does no
// I/O: beside two helpers under task/internal it imports only standard
// packages, none of which reaches files, the network, the environment or the
// clock. So code that must be deterministic, the loop's decision core
// loop/policy above all, holds a plan without bringing in file readers, YAML
// or another module; loop/policy's TestPure keeps it so.
//
// Most code should not import this package. Package
// [github.com/harnish/harnish/task] is the front door: it reads plans from
// YAML and JSON files (task.Load, task.Parse) and names every type here as
// an alias, so task.Plan is model.Plan and a plan read there is used here
// unchanged. Its documentation describes the schema, whose keys are the json
// tags of the types in this package. Import model directly only in a package
// that must stay pure.
//
// A plan built in code has no source, so its problems carry field paths
// only; a plan that package task parsed carries where each field was
// written, and Plan.Validate reports its problems at file, line and column.
// The sentinel errors keep the "task:" prefix of the package users meet
// them in.
package model
