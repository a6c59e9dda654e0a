package cmdguard

import (
	"regexp"
	"strings"
	"sync"
)

func init() {
	handle(sqlClient, "psql", "pgcli", "mysql", "mariadb", "mycli", "mysqlsh", "sqlite3", "sqlite",
		"duckdb", "sqlcmd", "clickhouse-client", "usql", "snowsql", "isql", "osql", "bq", "invoke-sqlcmd")
	handle(sqlSubcommand, "clickhouse", "cockroach")
}

var (
	sqlBlockComment = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?s)/\*.*?\*/`)
	})
	sqlLineComment = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)(--|#).*$`)
	})
	sqlDrop = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bdrop\s+(?:temporary\s+|temp\s+)?(?:table|database|schema)\b`)
	})
)

// sqlDropIn returns the DROP TABLE, DATABASE or SCHEMA statement in text,
// judged in any case and spacing, with comments as separators.
func sqlDropIn(text string) string {
	if !strings.Contains(strings.ToLower(text), "drop") {
		return ""
	}
	t := sqlBlockComment().ReplaceAllString(text, " ")
	t = sqlLineComment().ReplaceAllString(t, " ")
	return sqlDrop().FindString(t)
}

// sqlClient judges the SQL a client gets by argument and by standard input.
func sqlClient(e *evaluator, k *call) {
	for _, w := range k.args {
		t := w.Text
		if strings.HasPrefix(t, "-") {
			// An option: only the value of --name=value can be SQL.
			_, v, ok := strings.Cut(t, "=")
			switch {
			case ok:
				t = v
			case len(t) > 2 && t[1] != '-':
				t = t[2:] // -cSQL
			default:
				continue
			}
		}
		e.sqlText(k, t, "argument")
	}
	text, state, _ := stdinText(k.stdin, 0)
	if state == inputKnown {
		if s := sqlDropIn(text.Text); s != "" {
			e.add(RuleSQLDrop, k.matchInput(), "%q reaches the SQL client %s by standard input and destroys data", s, k.name)
		}
	}
}

func sqlSubcommand(e *evaluator, k *call) {
	if len(k.args) > 0 && (k.args[0].Text == "client" || k.args[0].Text == "sql") {
		sqlClient(e, &call{c: k.c, name: k.name, args: k.args[1:], stdin: k.stdin, sh: k.sh, depth: k.depth})
	}
}

func (e *evaluator) sqlText(k *call, text, via string) {
	if s := sqlDropIn(text); s != "" {
		e.add(RuleSQLDrop, k.match(), "%q reaches the SQL client %s by %s and destroys data", s, k.name, via)
	}
}
