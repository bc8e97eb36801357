// Command build checks the statements extract.py found on MariaDB and MySQL
// and writes the corpus files (../*.sql) with the statements MariaDB
// accepts, in their origin's order, one group per origin file.
//
//	python3 extract.py /tmp/raw.json
//	go run ./internal/ddl/testdata/corpus/build /tmp/raw.json internal/ddl/testdata/corpus
//
// The servers are SLUICE_TEST_MYSQL_ADMIN (MariaDB) and
// SLUICE_TEST_MYSQL9_ADMIN (MySQL); each group runs in a scratch database
// that is dropped afterwards.
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	_ "github.com/go-sql-driver/mysql"
)

type group struct {
	Name       string   `json:"name"`
	Origin     string   `json:"origin"`
	Statements []string `json:"statements"`
}

func main() {
	if len(os.Args) != 3 {
		log.Fatal("usage: build raw.json outdir")
	}
	b, err := os.ReadFile(os.Args[1])
	if err != nil {
		log.Fatal(err)
	}
	var groups []group
	if err := json.Unmarshal(b, &groups); err != nil {
		log.Fatal(err)
	}
	maria, my9 := open("SLUICE_TEST_MYSQL_ADMIN"), open("SLUICE_TEST_MYSQL9_ADMIN")
	files := map[string]*strings.Builder{}
	seen := map[string]bool{}
	total, kept := 0, 0
	for _, g := range groups {
		var stmts []string
		for _, s := range g.Statements {
			key := strings.ToLower(strings.Join(strings.Fields(s), " "))
			if seen[key] && !createTable.MatchString(s) {
				continue
			}
			seen[key] = true
			stmts = append(stmts, s)
		}
		total += len(stmts)
		okMaria := run(maria, stmts, true)
		var accepted []string
		for _, r := range okMaria {
			accepted = append(accepted, r.stmt)
		}
		okMy := run(my9, accepted, false)
		myErr := map[int]string{}
		for i, r := range okMy {
			if r.err != "" {
				myErr[i] = r.err
			}
		}
		if len(accepted) == 0 {
			continue
		}
		kept += len(accepted)
		file := fileOf(g.Name)
		w := files[file]
		if w == nil {
			w = &strings.Builder{}
			files[file] = w
		}
		fmt.Fprintf(w, "\n-- group: %s\n-- origin: %s\n", g.Name, g.Origin)
		for i, s := range accepted {
			if e := myErr[i]; e != "" {
				fmt.Fprintf(w, "-- mysql 9.7 rejects: %s\n", oneLine(e))
			}
			fmt.Fprintf(w, "%s;\n", s)
		}
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		head := "-- sluice DDL corpus (internal/ddl/testdata/corpus/build): table DDL from other projects' test suites,\n" +
			"-- one statement a line, each accepted by MariaDB 10.11 in this order (a line \"-- mysql 9.7 rejects\"\n" +
			"-- before one says MySQL 9.7 did not); \"DROP TABLE\" lines before a CREATE of a name already\n" +
			"-- taken were added by the build, since those origins' statements are independent.\n"
		if err := os.WriteFile(filepath.Join(os.Args[2], n+".sql"), []byte(head+files[n].String()), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	log.Printf("%d statements, %d accepted by MariaDB", total, kept)
}

var createTable = regexp.MustCompile(`(?i)^create\s+(or\s+replace\s+)?table\s+(if\s+not\s+exists\s+)?(` + "`[^`]+`" + `|[\w$]+)`)

func fileOf(name string) string {
	switch {
	case strings.HasPrefix(name, "gh-ost/"):
		return "ghost"
	case strings.HasPrefix(name, "debezium/"):
		return "debezium"
	case strings.HasPrefix(name, "vitess"):
		return "vitess"
	}
	return "mysqltest"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func open(env string) *sql.DB {
	u, err := url.Parse(os.Getenv(env))
	if err != nil || u.Host == "" {
		log.Fatalf("%s: not a mysql:// URL", env)
	}
	pw, _ := u.User.Password()
	db, err := sql.Open("mysql", u.User.Username()+":"+pw+"@tcp("+u.Host+")/?timeout=5s")
	if err != nil {
		log.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	return db
}

type result struct {
	stmt, err string
}

const scratch = "zz_sluice_ddlcorpus_build"

// run executes statements in a fresh scratch database. With keepOnly it
// returns the statements the server accepted (a CREATE of a taken name is
// preceded by a DROP TABLE it adds), else every statement with its error.
func run(db *sql.DB, stmts []string, keepOnly bool) []result {
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	for _, s := range []string{"DROP DATABASE IF EXISTS " + scratch, "CREATE DATABASE " + scratch + " CHARACTER SET utf8mb4", "USE " + scratch} {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			log.Fatal(err)
		}
	}
	defer conn.ExecContext(ctx, "DROP DATABASE IF EXISTS "+scratch)
	var out []result
	for _, s := range stmts {
		err := exec(conn, s)
		if err != nil && keepOnly && strings.Contains(err.Error(), "Error 1050") {
			if m := createTable.FindStringSubmatch(s); m != nil && m[2] == "" {
				drop := "DROP TABLE " + m[3]
				if exec(conn, drop) == nil {
					out = append(out, result{stmt: drop})
					err = exec(conn, s)
				}
			}
		}
		switch {
		case err == nil:
			out = append(out, result{stmt: s})
		case !keepOnly:
			out = append(out, result{stmt: s, err: err.Error()})
		}
	}
	return out
}

func exec(conn *sql.Conn, s string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := conn.ExecContext(ctx, s)
	return err
}
