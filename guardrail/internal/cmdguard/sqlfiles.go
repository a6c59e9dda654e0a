package cmdguard

import (
	"strings"

	"github.com/harnish/harnish/guardrail/internal/shell"
)

// fileDatabases are the SQL clients whose first operand is a database
// file they open, and may write, and the options of theirs that take a
// value (how many words).
var fileDatabases = map[string]map[string]int{
	"sqlite3": sqliteValued, "sqlite": sqliteValued,
	"litecli": {"e": 1, "execute": 1, "R": 1, "prompt": 1, "l": 1, "logfile": 1, "liteclirc": 1},
	"duckdb":  {"c": 1, "s": 1, "cmd": 1, "init": 1, "f": 1},
}

var sqliteValued = map[string]int{
	"A": 1, "cmd": 1, "init": 1, "separator": 1, "newline": 1, "nullvalue": 1, "vfs": 1, "mmap": 1,
	"maxsize": 1, "nonce": 1, "lookaside": 2, "pagecache": 2, "heap": 2, "D": 1, "R": 1,
}

// databaseFile judges the database file a file-database client opens: it
// is written unless the client is told to read only or every statement it
// is given reads, so a protected or system file it names is a write
// (sqlite3 .harnish/x.db 'INSERT ...').
func (e *evaluator) databaseFile(k *call) {
	valued, ok := fileDatabases[k.name]
	if !ok {
		return
	}
	var db *shell.Word
	var sql []string
	fromFile := false
	a := k.args
	for i := 0; i < len(a); i++ {
		t := a[i].Text
		if strings.HasPrefix(t, "-") && len(t) > 1 {
			name := strings.TrimLeft(t, "-")
			if name == "readonly" {
				return
			}
			if n := valued[name]; n > 0 {
				switch name {
				case "cmd", "c", "s", "e", "execute": // a statement
					if i+1 < len(a) {
						sql = append(sql, a[i+1].Text)
					}
				case "init", "f":
					fromFile = true // statements in a file: not known
				}
				i += n
			}
			continue
		}
		if db == nil {
			db = &a[i]
			continue
		}
		sql = append(sql, t)
	}
	if db == nil || db.Text == ":memory:" {
		return
	}
	if text, state, _ := stdinText(k.stdin, 0); state == inputKnown {
		sql = append(sql, text.Text)
	}
	// No statement known (a session, a file redirected in, another
	// program's output) may be anything: a write.
	if fromFile || len(sql) == 0 || !readsOnly(sql) {
		e.write(*db, k.match(), "writes into the database")
	}
}

// readsOnly reports whether every statement of sql only reads: SELECT,
// EXPLAIN, VALUES, a PRAGMA that sets nothing, WITH ... SELECT, and the
// dot commands that show.
func readsOnly(sql []string) bool {
	for _, s := range sql {
		for _, st := range scriptLines(s) {
			st = strings.TrimSpace(st)
			if st == "" || strings.HasPrefix(st, "--") {
				continue
			}
			f := strings.Fields(strings.ToLower(st))
			switch f[0] {
			case "select", "explain", "values":
			case "pragma":
				// PRAGMA x = v and PRAGMA x(v) set x, but for the
				// pragmas that take a table or a count and report:
				// table_info(t), integrity_check(10).
				if strings.Contains(st, "=") || strings.Contains(st, "(") && !reportPragma(st) {
					return false
				}
			case "with":
				for _, w := range []string{"insert", "update", "delete", "replace"} {
					if containsFold(st, w) {
						return false
					}
				}
			case ".tables", ".table", ".schema", ".dump", ".indexes", ".indices", ".mode", ".headers", ".header",
				".timer", ".show", ".databases", ".help", ".width", ".separator", ".nullvalue", ".print", ".echo",
				".bail", ".eqp", ".fullschema", ".stats", ".dbinfo", ".lint", ".quit", ".exit", ".output", ".once",
				".changes", ".columns", ".explain", ".parameter", ".prompt", ".scanstats", ".excel":
			default:
				return false
			}
		}
	}
	return true
}

// reportPragma reports whether the PRAGMA statement st names a pragma that
// takes an argument and only reports: *_info, *_list, *_check.
func reportPragma(st string) bool {
	name, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(st[len("pragma"):])), "(")
	name = strings.TrimSpace(name)
	return strings.HasSuffix(name, "_info") || strings.HasSuffix(name, "_list") || strings.HasSuffix(name, "_check")
}
