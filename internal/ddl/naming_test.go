package ddl_test

import (
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/ddl"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

// namedTranslator is corpusTranslator under a naming.
func namedTranslator(t *testing.T, o schema.NamingOptions) *ddl.Translator {
	t.Helper()
	f, err := schema.NewFilter([]string{"src"}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	n, err := schema.NewNamingOptions(o)
	if err != nil {
		t.Fatal(err)
	}
	return ddl.NewTranslator(pureCatalog(), typemap.New(typemap.DefaultOptions(), nil), n, f)
}

// translateAll runs statements in order and returns the PostgreSQL
// statements of the last one (or its error).
func translateAll(t *testing.T, tr *ddl.Translator, stmts ...string) (string, error) {
	t.Helper()
	cur := ddl.Tables{}
	var last *ddl.Result
	for i, s := range stmts {
		res, err := tr.Translate(cur, s, "src")
		if err != nil {
			if i == len(stmts)-1 {
				return "", err
			}
			t.Fatalf("%s: %v", s, err)
		}
		applyResult(cur, res)
		last = res
	}
	return strings.Join(last.PG, ";\n"), nil
}

func TestTranslateIdentifiersLower(t *testing.T) {
	tr := namedTranslator(t, schema.NamingOptions{Identifiers: "lower"})
	create := "CREATE TABLE `Mixed` (`Id` INT PRIMARY KEY, `FooBar` VARCHAR(10), KEY `IxFoo` (`FooBar`))"
	pg, err := translateAll(t, tr, create)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`CREATE TABLE "src"."mixed"`, `"id" integer`, `"foobar" varchar(10)`,
		`CONSTRAINT "mixed_pkey" PRIMARY KEY ("id")`, `INDEX IF NOT EXISTS "mixed_ixfoo" ON "src"."mixed" ("foobar")`} {
		if !strings.Contains(pg, want) {
			t.Errorf("CREATE TABLE lacks %s:\n%s", want, pg)
		}
	}
	cases := map[string][]string{
		"ALTER TABLE `Mixed` ADD COLUMN `Foo` INT": {`ALTER TABLE "src"."mixed" ADD COLUMN "foo" integer`},
		"ALTER TABLE `Mixed` CHANGE `FooBar` `BarBaz` VARCHAR(20)": {
			`ALTER TABLE "src"."mixed" RENAME COLUMN "foobar" TO "barbaz"`, `ALTER COLUMN "barbaz" TYPE varchar(20)`},
		"ALTER TABLE `Mixed` DROP INDEX `IxFoo`": {`DROP INDEX IF EXISTS "src"."mixed_ixfoo"`},
		"RENAME TABLE `Mixed` TO `Other`": {`ALTER TABLE "src"."mixed" RENAME TO "other"`,
			`RENAME CONSTRAINT "mixed_pkey" TO "other_pkey"`, `ALTER INDEX IF EXISTS "src"."mixed_ixfoo" RENAME TO "other_ixfoo"`},
		// the same name on the target: nothing to rename
		"ALTER TABLE `Mixed` CHANGE `FooBar` `foobar` VARCHAR(10)": nil,
	}
	for stmt, wants := range cases {
		pg, err := translateAll(t, tr, create, stmt)
		if err != nil {
			t.Errorf("%s: %v", stmt, err)
			continue
		}
		for _, want := range wants {
			if !strings.Contains(pg, want) {
				t.Errorf("%s: lacks %s:\n%s", stmt, want, pg)
			}
		}
		if strings.Contains(pg, "Mixed") || strings.Contains(pg, "Foo\"") {
			t.Errorf("%s: mixed case left on the target:\n%s", stmt, pg)
		}
	}
	// Two tables that fold to one name: refused, naming both and --rename.
	_, err = translateAll(t, tr, create, "CREATE TABLE `mixed` (id INT PRIMARY KEY)")
	if err == nil || !strings.Contains(err.Error(), "src.Mixed") || !strings.Contains(err.Error(), "--rename") {
		t.Errorf("colliding CREATE TABLE: %v", err)
	}
}

func TestTranslateRenameAndExclude(t *testing.T) {
	long := "t_" + strings.Repeat("é", 34) // 70 bytes
	tr := namedTranslator(t, schema.NamingOptions{
		Renames:        []string{"src." + long + "=short_t", "src." + long + ".c=renamed_c"},
		ExcludeColumns: []string{"src." + long + ".secret", "src." + long + ".later"},
	})
	create := "CREATE TABLE `" + long + "` (id INT PRIMARY KEY, c INT, secret VARCHAR(10), KEY ks (secret), KEY kc (c))"
	pg, err := translateAll(t, tr, create)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`CREATE TABLE "src"."short_t"`, `"renamed_c" integer`, `"short_t_kc" ON "src"."short_t" ("renamed_c")`} {
		if !strings.Contains(pg, want) {
			t.Errorf("CREATE TABLE lacks %s:\n%s", want, pg)
		}
	}
	if strings.Contains(pg, "secret") || strings.Contains(pg, "short_t_ks") {
		t.Errorf("excluded column on the target:\n%s", pg)
	}
	for stmt, want := range map[string]string{
		"ALTER TABLE `" + long + "` MODIFY secret VARCHAR(100)": "",
		"ALTER TABLE `" + long + "` DROP COLUMN secret":         "",
		"ALTER TABLE `" + long + "` ADD COLUMN later INT":       "",
		"ALTER TABLE `" + long + "` MODIFY c BIGINT":            `ALTER TABLE "src"."short_t" ALTER COLUMN "renamed_c" TYPE bigint`,
	} {
		pg, err := translateAll(t, tr, create, stmt)
		if err != nil {
			t.Errorf("%s: %v", stmt, err)
			continue
		}
		if want == "" && pg != "" {
			t.Errorf("%s: want nothing on the target, got:\n%s", stmt, pg)
		}
		if want != "" && !strings.Contains(pg, want) {
			t.Errorf("%s: lacks %s:\n%s", stmt, want, pg)
		}
	}
	// CHANGE that would bring an excluded column onto the target: refused.
	if _, err := translateAll(t, tr, create, "ALTER TABLE `"+long+"` CHANGE secret visible VARCHAR(10)"); err == nil {
		t.Error("CHANGE of an excluded column to a kept name was accepted")
	}
	// Without the rename, the 70-byte name is refused naming --rename.
	_, err = translateAll(t, namedTranslator(t, schema.NamingOptions{}), create)
	if err == nil || !strings.Contains(err.Error(), "--rename src."+long+"=") {
		t.Errorf("70-byte table name: %v", err)
	}
}
