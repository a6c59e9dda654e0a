package cmdguard

import (
	"regexp"
	"strings"
	"sync"

	"github.com/harnish/harnish/guardrail/internal/shell"
)

func init() {
	handle(sqlClient, "psql", "pgcli", "mysql", "mariadb", "mycli", "mysqlsh", "sqlite3", "sqlite",
		"duckdb", "sqlcmd", "clickhouse-client", "usql", "snowsql", "isql", "osql", "bq", "invoke-sqlcmd",
		"cqlsh", "trino", "presto", "beeline", "hive", "impala-shell", "spark-sql", "vsql", "litecli", "sqlplus", "turso")
	handle(dropTool, "dropdb", "mysqladmin", "mariadb-admin")
	handle(sqlSubcommand, "clickhouse", "cockroach")
	handle(appSQL, "manage.py", "django-admin", "rails", "wrangler", "sqlite-utils", "heroku", "prisma", "pscale",
		"fly", "flyctl")
}

// appSQL judges the database shells of frameworks and platforms, which pass
// SQL from their arguments or standard input to a client: manage.py and
// django-admin dbshell, rails db and dbconsole, php artisan db, wrangler d1
// execute, sqlite-utils (query, and drop-table), heroku pg:psql, prisma db
// execute, pscale shell, fly postgres connect.
func appSQL(e *evaluator, k *call) {
	a := k.args
	sub := func(n int, names ...string) bool {
		return len(a) >= n && contains(names, a[n-1].Text)
	}
	var rest []shell.Word
	switch k.name {
	case "manage.py", "django-admin":
		if !sub(1, "dbshell") {
			return
		}
		rest = a[1:]
	case "rails":
		if !sub(1, "db", "dbconsole") {
			return
		}
		rest = a[1:]
	case "wrangler":
		if !sub(1, "d1") || !sub(2, "execute") {
			return
		}
		rest = a[2:]
	case "sqlite-utils":
		if sub(1, "drop-table", "drop-view") {
			e.add(RuleSQLDrop, k.match(), "sqlite-utils %s drops and destroys its data", a[0].Text)
			return
		}
		rest = a
	case "heroku":
		if !sub(1, "pg:psql") {
			return
		}
		rest = a[1:]
	case "prisma":
		if !sub(1, "db") || !sub(2, "execute") {
			return
		}
		rest = a[2:]
	case "pscale":
		if !sub(1, "shell") {
			return
		}
		rest = a[1:]
	case "fly", "flyctl":
		if !sub(1, "postgres", "pg") || !sub(2, "connect") {
			return
		}
		rest = a[2:]
	}
	sqlClient(e, &call{c: k.c, name: k.name, args: rest, stdin: k.stdin, sh: k.sh, depth: k.depth})
}

// scriptSQL judges an interpreter running a framework's command script
// whose subcommand opens a database shell: python manage.py dbshell, php
// artisan db. It reports whether a was one.
func scriptSQL(e *evaluator, k *call, a []shell.Word) bool {
	for i, w := range a {
		if strings.HasPrefix(w.Text, "-") {
			continue
		}
		base := w.Text[strings.LastIndexByte(w.Text, '/')+1:]
		if i+1 < len(a) && (base == "manage.py" && a[i+1].Text == "dbshell" || base == "artisan" && a[i+1].Text == "db") {
			sqlClient(e, &call{c: k.c, name: base, args: a[i+2:], stdin: k.stdin, sh: k.sh, depth: k.depth})
			return true
		}
		return false
	}
	return false
}

var (
	sqlBlockComment = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?s)/\*.*?\*/`)
	})
	sqlLineComment = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)(--|#).*$`)
	})
	sqlDrop = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bdrop\s+(?:temporary\s+|temp\s+)?(?:table|database|schema|keyspace)\b`)
	})
	// sqlEmpty finds what empties a table and leaves it defined: TRUNCATE
	// [TABLE] name (not MySQL's TRUNCATE(x, d) function), and DELETE
	// [LOW_PRIORITY] [QUICK] [IGNORE] [t1, t2] FROM, whose statement is then
	// looked at for a WHERE.
	sqlEmpty = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\btruncate\s+(?:table\s+)?(?:only\s+)?(?:if\s+exists\s+)?[a-z_"\x60\[$:{]|` +
			`\bdelete\s+(?:(?:low_priority|quick|ignore)\s+)*(?:[\w.$"\x60\[\]]+(?:\s*,\s*[\w.$"\x60\[\]]+)*\s+)?from\b`)
	})
	sqlWhere = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bwhere\b`)
	})
)

// sqlDanger returns the rule and the statement of the first SQL in text that
// destroys data: DROP TABLE, DATABASE or SCHEMA (sql.drop), TRUNCATE or a
// DELETE FROM without WHERE (sql.destroy), judged in any case and spacing,
// with comments as separators and string literals only mentions.
func sqlDanger(text string) (rule, stmt string) {
	lower := strings.ToLower(text)
	drop := strings.Contains(lower, "drop")
	empty := strings.Contains(lower, "truncate") || strings.Contains(lower, "delete")
	if !drop && !empty {
		return "", ""
	}
	t := sqlStrings(text)
	t = sqlBlockComment().ReplaceAllString(t, " ")
	t = sqlLineComment().ReplaceAllString(t, " ")
	if drop {
		if s := sqlDrop().FindString(t); s != "" {
			return RuleSQLDrop, s
		}
	}
	if !empty {
		return "", ""
	}
	for _, m := range sqlEmpty().FindAllStringIndex(t, -1) {
		s := t[m[0]:m[1]]
		if s[0] == 't' || s[0] == 'T' {
			return RuleSQLDestroy, strings.TrimRight(s[:len(s)-1], " \t\r\n")
		}
		// DELETE FROM: its statement runs to the next semicolon.
		end := strings.IndexByte(t[m[1]:], ';')
		if end < 0 {
			end = len(t) - m[1]
		}
		if !sqlWhere().MatchString(t[m[1] : m[1]+end]) {
			return RuleSQLDestroy, strings.Join(strings.Fields(t[m[0]:m[1]+end]), " ") + " (without WHERE)"
		}
	}
	return "", ""
}

// sqlClient judges the SQL a client gets by argument and by standard input.
func sqlClient(e *evaluator, k *call) {
	e.databaseFile(k)
	for _, w := range k.args {
		t := w.Text
		if text, ok := e.writtenText(withText(w, strings.TrimPrefix(t, "--file="))); ok {
			// psql -f x.sql after echo '...' > x.sql: the file's SQL is known.
			k2 := *k
			k2.stdin = shell.Input{Kind: shell.Text, Text: shell.Lit(text)}
			sqlInput(e, &k2)
		}
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
		if text, ok := printedText(w); ok {
			t = text // psql -c "$(echo 'DROP TABLE t')": the SQL is what echo prints
		}
		e.sqlText(k, t, "argument")
	}
	sqlInput(e, k)
}

// sqlInput judges the SQL k's standard input gives the client, when known.
func sqlInput(e *evaluator, k *call) {
	text, state, _ := stdinText(k.stdin, 0)
	if state == inputKnown {
		e.sqlShellEscapes(k, text.Text)
		e.sqlWrites(k, text.Text)
		if rule, s := sqlDanger(text.Text); s != "" {
			e.add(rule, k.matchInput(), "%q reaches the SQL client %s by standard input and destroys data", s, k.name)
		}
	}
}

func sqlSubcommand(e *evaluator, k *call) {
	if len(k.args) > 0 && (k.args[0].Text == "client" || k.args[0].Text == "sql") {
		sqlClient(e, &call{c: k.c, name: k.name, args: k.args[1:], stdin: k.stdin, sh: k.sh, depth: k.depth})
	}
}

// sqlShellEscapes judges the commands a SQL client runs from its own
// input: psql's and mysql's \! CMD, mysql's system CMD, sqlite3's and
// duckdb's .shell and .system, sqlcmd's !! CMD, at the start of a line or
// after a semicolon.
func (e *evaluator) sqlShellEscapes(k *call, text string) {
	if !strings.ContainsAny(text, "!.sS") {
		return
	}
	for _, line := range scriptLines(text) {
		t := strings.TrimSpace(line)
		var cmd string
		switch {
		case strings.HasPrefix(t, `\!`):
			cmd = t[2:]
		case strings.HasPrefix(t, "!!"):
			cmd = t[2:]
		case len(t) > 7 && strings.EqualFold(t[:7], "system "):
			cmd = t[7:]
		case strings.HasPrefix(t, ".shell "), strings.HasPrefix(t, ".system "):
			_, cmd, _ = strings.Cut(t, " ")
		default:
			continue
		}
		if cmd = strings.TrimSpace(cmd); cmd != "" {
			e.script(cmd, Bash, k.depth+1)
		}
	}
}

func (e *evaluator) sqlText(k *call, text, via string) {
	e.sqlShellEscapes(k, text)
	e.sqlWrites(k, text)
	if rule, s := sqlDanger(text); s != "" {
		e.add(rule, k.match(), "%q reaches the SQL client %s by %s and destroys data", s, k.name, via)
	}
}

// sqlWrites judges the files a SQL client's input writes, and the commands
// it hands its output to.
func (e *evaluator) sqlWrites(k *call, text string) {
	for _, f := range sqlWrites(text) {
		if cmd, ok := strings.CutPrefix(f, "|"); ok {
			e.script(strings.TrimSpace(cmd), Bash, k.depth+1)
			continue
		}
		e.write(shell.Lit(f), k.match(), "writes (through "+k.name+")")
	}
}

// sqlWrites returns the files a SQL client's input writes: sqlite3's
// .output, .once, .save and .backup FILE, psql's \o, \out, \g and \w FILE,
// VACUUM INTO 'FILE' and MySQL's INTO OUTFILE or DUMPFILE 'FILE'. A target
// starting with | is a command the client runs with its output.
func sqlWrites(text string) []string {
	if !strings.ContainsAny(text, `.\`) && !containsFold(text, " into ") {
		return nil
	}
	var out []string
	for _, line := range scriptLines(text) {
		t := strings.TrimSpace(line)
		f := strings.Fields(t)
		if len(f) == 0 {
			continue
		}
		switch strings.ToLower(f[0]) {
		case ".output", ".once", ".save", ".backup", `\o`, `\out`, `\w`, `\write`, `\g`:
			if len(f) < 2 {
				continue
			}
			target := strings.TrimSpace(t[len(f[0]):])
			if strings.HasPrefix(target, "|") {
				out = append(out, target)
				continue
			}
			if f[0] == ".backup" || f[0] == ".once" {
				target = f[len(f)-1] // .backup DB FILE, .once -x FILE
			} else {
				target = f[1]
			}
			out = append(out, strings.Trim(target, `'"`))
		default:
			low := lowerASCII(t) // byte for byte: its offsets index t
			for _, kw := range []string{" into outfile ", " into dumpfile ", "vacuum into ", " into "} {
				i := strings.Index(low, kw)
				if i < 0 || kw == " into " && !strings.HasPrefix(low, "vacuum ") {
					continue
				}
				rest := strings.TrimSpace(t[i+len(kw):])
				if len(rest) > 1 && (rest[0] == '\'' || rest[0] == '"') {
					if end := strings.IndexByte(rest[1:], rest[0]); end >= 0 {
						out = append(out, rest[1:1+end])
					}
				}
				break
			}
		}
		if len(out) >= maxCalls {
			break
		}
	}
	return out
}

// sqlStrings blanks the contents of SQL's string literals ('...' with ”
// escapes, and MySQL's "..."), which only mention what they hold: SELECT
// 'DROP TABLE t' drops nothing. A quote left open is left as is.
func sqlStrings(text string) string {
	if !strings.ContainsAny(text, `'"`) {
		return text
	}
	b := []byte(text)
	for i := 0; i < len(b); i++ {
		q := b[i]
		if q != '\'' && q != '"' {
			continue
		}
		j := i + 1
		for j < len(b) {
			if b[j] == '\\' && q == '\'' {
				j += 2
				continue
			}
			if b[j] == q {
				if j+1 < len(b) && b[j+1] == q {
					j += 2
					continue
				}
				break
			}
			j++
		}
		if j >= len(b) {
			break
		}
		if q == '"' && isIdentifier(b[i+1:j]) || executes(b[:i]) {
			// A quoted identifier ("Users"), or dynamic SQL that runs:
			// EXECUTE 'DROP TABLE t', EXEC('...'), format('DROP ...').
			i = j
			continue
		}
		for x := i + 1; x < j; x++ {
			b[x] = ' '
		}
		i = j
	}
	return string(b)
}

// executes reports whether the SQL before a string literal runs it:
// EXECUTE, EXEC, IMMEDIATE, sp_executesql, format( or concatenation into one.
func executes(before []byte) bool {
	t := strings.ToLower(strings.TrimRight(string(before[max(0, len(before)-40):]), " \t\r\n(,|"))
	for _, w := range []string{"execute", "exec", "immediate", "sp_executesql", "format", "concat", "n"} {
		if strings.HasSuffix(t, w) && (len(t) == len(w) || !identChar(t[len(t)-len(w)-1])) {
			return true
		}
	}
	return strings.HasSuffix(t, "|") || strings.HasSuffix(t, "+")
}

func isIdentifier(s []byte) bool {
	for _, c := range s {
		if !(c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80) {
			return false
		}
	}
	return true
}

// dropTool judges the database tools that drop a database by subcommand:
// dropdb NAME, mysqladmin drop NAME.
func dropTool(e *evaluator, k *call) {
	if k.name == "dropdb" {
		for _, w := range k.args {
			if w.Text == "--help" || w.Text == "-?" || w.Text == "--version" || w.Text == "-V" {
				return
			}
		}
		e.add(RuleSQLDrop, k.match(), "dropdb drops a database and destroys its data")
		return
	}
	for _, w := range k.args {
		if strings.EqualFold(w.Text, "drop") {
			e.add(RuleSQLDrop, k.match(), "%s drop drops a database and destroys its data", k.name)
			return
		}
	}
}
