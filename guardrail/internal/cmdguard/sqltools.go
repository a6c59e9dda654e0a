package cmdguard

import (
	"strings"

	"github.com/harnish/harnish/guardrail/internal/shell"
)

// Database tools that drop or empty a database by subcommand, as dropdb
// and mysqladmin drop do: frameworks' tasks (rails db:drop, php artisan
// migrate:fresh, mix ecto.drop, prisma migrate reset, ...) and migration
// tools' (flyway clean, dbmate drop, ...).

// dbTask is one destroying subcommand: the words that name it (after the
// tool's options), the rule, and an option it needs to act (doctrine only
// prints without --force).
type dbTask struct {
	words []string
	rule  string
	needs []string
}

func drops(words string, needs ...string) dbTask {
	return dbTask{words: strings.Fields(words), rule: RuleSQLDrop, needs: needs}
}

func empties(words string) dbTask {
	return dbTask{words: strings.Fields(words), rule: RuleSQLDestroy}
}

// dbTasks maps a tool's canonical name (or its script's: manage.py,
// artisan, console) to its destroying subcommands.
var dbTasks = map[string][]dbTask{
	"rails": {drops("db:drop"), drops("db:drop:all"), drops("db:reset"), drops("db:migrate:reset"), drops("db:purge"),
		drops("db:purge:all"), empties("db:truncate_all"), drops("db:schema:load")},
	"artisan":        {drops("migrate:fresh"), drops("db:wipe"), drops("migrate:reset"), drops("migrate:refresh")},
	"console":        {drops("doctrine:database:drop", "--force", "-f"), drops("doctrine:schema:drop", "--force", "-f")},
	"manage.py":      {drops("reset_db"), drops("drop_test_database"), empties("flush")},
	"prisma":         {drops("migrate reset"), drops("db push", "--force-reset")},
	"mix":            {drops("ecto.drop"), drops("ecto.reset"), drops("ecto.rollback", "--all")},
	"dotnet":         {drops("ef database drop"), drops("ef database update 0")},
	"sequelize":      {drops("db:drop"), drops("db:migrate:undo:all")},
	"knex":           {drops("migrate:rollback", "--all")},
	"alembic":        {drops("downgrade base")},
	"goose":          {drops("reset"), drops("down-to 0")},
	"pg_dropcluster": {drops("")},
	"typeorm":        {drops("schema:drop")},
	"supabase":       {drops("db reset")},
	"dbmate":         {drops("drop")},
	"flyway":         {drops("clean")},
	"liquibase":      {drops("drop-all"), drops("dropAll")},
	"diesel":         {drops("database reset"), drops("database drop")},
	"sqlx":           {drops("database drop"), drops("database reset")},
	"atlas":          {drops("schema clean")},
	"bq":             {drops("rm")},
	"gcloud":         {drops("sql databases delete"), drops("sql instances delete")},
	"heroku":         {drops("pg:reset")},
	"migrate":        {}, // golang-migrate: see dbTask
	"django-admin":   {drops("reset_db"), empties("flush")},
}

// dbToolNames are the other names the tools of dbTasks go by.
var dbToolNames = map[string]string{
	"rake": "rails", "sequelize-cli": "sequelize", "typeorm-ts-node-commonjs": "typeorm",
	"typeorm-ts-node-esm": "typeorm", "symfony": "console",
}

// dbTask judges a database tool's subcommand that drops or empties a
// database. It reports whether one was found.
func (e *evaluator) dbTask(k *call, tool string, a []shell.Word) bool {
	if n, ok := dbToolNames[tool]; ok {
		tool = n
	}
	tasks, found := dbTasks[tool]
	if !found {
		return false
	}
	var words []string
	var opts []string
	for j := 0; j < len(a); j++ {
		t := a[j].Text
		switch {
		case t == "--help" || t == "-h" || t == "help":
			return false
		case strings.HasPrefix(t, "-"):
			opts = append(opts, t)
			if tool == "migrate" && (t == "-path" || t == "-database" || t == "-source" || t == "-lock-timeout") {
				j++ // golang-migrate's one-dash options take a value
			}
		case tool == "console" && t == "console" && len(words) == 0:
			// symfony console doctrine:...
		default:
			words = append(words, t)
		}
	}
	if tool == "bq" && (hasAnyOption(opts, []string{"-j", "--job"})) {
		return false // bq rm -j removes a job's record, not data
	}
	if (tool == "manage.py" || tool == "django-admin") && len(words) == 3 && words[0] == "migrate" && words[2] == "zero" {
		// migrate APP zero unapplies every migration of APP: its tables go.
		e.add(RuleSQLDrop, k.match(), "%s migrate %s zero unapplies every migration and drops the app's tables", tool, words[1])
		return true
	}
	if tool == "goose" || tool == "alembic" {
		// goose [-dir D] [DRIVER DBSTRING] COMMAND, alembic [-c FILE]
		// COMMAND (options' values are among the words): goose reset and
		// down-to 0, alembic downgrade base roll every migration back.
		for i, w := range words {
			next := i+1 < len(words) && (tool == "goose" && w == "down-to" && words[i+1] == "0" ||
				tool == "alembic" && w == "downgrade" && words[i+1] == "base")
			if tool == "goose" && w == "reset" || next {
				e.add(RuleSQLDrop, k.match(), "%s %s rolls every migration back and drops their tables", tool, w)
				return true
			}
		}
		return false
	}
	if tool == "migrate" {
		if len(words) > 0 && words[0] == "drop" {
			e.add(RuleSQLDrop, k.match(), "migrate drop drops everything in the database and destroys its data")
			return true
		}
		return false
	}
	for _, task := range tasks {
		if len(words) < len(task.words) || !equalWords(words[:len(task.words)], task.words) {
			continue
		}
		if len(task.needs) > 0 && !hasAnyOption(opts, task.needs) {
			continue
		}
		what := "drops the database or its tables"
		if task.rule == RuleSQLDestroy {
			what = "empties the database's tables"
		}
		e.add(task.rule, k.match(), "%s %s %s and destroys their data", tool, strings.Join(task.words, " "), what)
		return true
	}
	return false
}

func equalWords(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// hasAnyOption reports whether opts hold one of names, alone or with a
// value (--all, --run=true).
func hasAnyOption(opts, names []string) bool {
	for _, o := range opts {
		name, _, _ := strings.Cut(o, "=")
		if contains(names, name) {
			return true
		}
	}
	return false
}

// scriptDBTask judges an interpreter running a framework's command script
// (python manage.py flush, php artisan migrate:fresh, php bin/console
// doctrine:database:drop --force).
func (e *evaluator) scriptDBTask(k *call, a []shell.Word) bool {
	for i, w := range a {
		if strings.HasPrefix(w.Text, "-") {
			continue
		}
		base := w.Text[strings.LastIndexByte(w.Text, '/')+1:]
		switch base {
		case "manage.py", "artisan", "console", "rails", "rake":
			return e.frameworkCode(k, base, a[i+1:]) || e.dbTask(k, base, a[i+1:])
		}
		return false
	}
	return false
}

// cloudSQL judges SQL a cloud CLI sends to a database in an option's value
// (aws athena start-query-execution --query-string, aws rds-data
// execute-statement --sql, gcloud spanner databases execute-sql --sql).
func (e *evaluator) cloudSQL(k *call, names ...string) {
	for j, w := range k.args {
		for _, n := range names {
			var v string
			switch {
			case w.Text == n && j+1 < len(k.args):
				v = k.args[j+1].Text
			case strings.HasPrefix(w.Text, n+"="):
				v = w.Text[len(n)+1:]
			default:
				continue
			}
			if rule, stmt := sqlDanger(v); stmt != "" {
				e.add(rule, k.match(), "%q reaches a database through %s %s and destroys data", stmt, k.name, n)
			}
		}
	}
}

// frameworkCode judges the code a framework's console runs from an
// argument: rails runner CODE (Ruby), manage.py shell -c CODE (Python),
// artisan tinker --execute=CODE (PHP). It reports whether there was some.
func (e *evaluator) frameworkCode(k *call, tool string, a []shell.Word) bool {
	if len(a) == 0 {
		return false
	}
	var key string
	var code shell.Word
	var ok bool
	switch {
	case (tool == "rails" || tool == "rake") && (a[0].Text == "runner" || a[0].Text == "r") && len(a) > 1:
		key, code, ok = "ruby", a[len(a)-1], !strings.HasSuffix(a[len(a)-1].Text, ".rb")
	case (tool == "manage.py" || tool == "django-admin") && a[0].Text == "shell":
		key = "python"
		code, ok = optionValue(a[1:], "-c", "--command")
	case tool == "artisan" && a[0].Text == "tinker":
		key = "php"
		code, ok = optionValue(a[1:], "--execute")
	}
	if !ok {
		return false
	}
	e.code(k, langs[key], code)
	return true
}
