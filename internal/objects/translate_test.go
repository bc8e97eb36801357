package objects

import (
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/sqlexpr"
	"github.com/sluice-db/sluice/internal/typemap"
)

// testGenerator has one table shop.t (id INT, name VARCHAR, price
// DECIMAL(8,2), born DATE) and one view shop.v (id, name).
func testGenerator(t *testing.T, schemaMap ...string) *generator {
	t.Helper()
	n, err := schema.NewNaming(schemaMap)
	if err != nil {
		t.Fatal(err)
	}
	tbl := &schema.Table{TableID: schema.TableID{Database: "shop", Name: "t"}, Columns: []schema.Column{
		{Name: "id", DataType: "int"}, {Name: "Name", DataType: "varchar", Collation: "utf8mb4_general_ci"},
		{Name: "price", DataType: "decimal", Scale: 2}, {Name: "born", DataType: "date"},
	}}
	g := &generator{cat: &schema.Catalog{Tables: []*schema.Table{tbl}}, naming: n, m: typemap.New(typemap.DefaultOptions(), nil),
		views: map[string]*viewDef{}, routines: map[string]bool{"shop.f": true}}
	g.views["shop.v"] = &viewDef{obj: &Object{Kind: KindView, Database: "shop", Name: "v"},
		cols: []*sqlexpr.Column{{Name: "id", Class: sqlexpr.Int, Scale: -1}, {Name: "name", Class: sqlexpr.Text, Scale: -1}}}
	return g
}

func translate(t *testing.T, g *generator, def string) *Object {
	t.Helper()
	v := &viewDef{obj: &Object{Kind: KindView, Database: "shop", Name: "x"}, definition: def}
	g.translateView(v)
	return v.obj
}

func TestViewTranslation(t *testing.T) {
	g := testGenerator(t, "shop=public")
	for _, c := range []struct{ def, want string }{
		{"select `shop`.`t`.`id` AS `id` from `shop`.`t`", `SELECT "public"."t"."id" AS "id" FROM "public"."t"`},
		// Column names take the table's spelling; unqualified tables are in the view's database.
		{"select `x`.`NAME` AS `n` from `t` `x`", `SELECT "x"."Name" AS "n" FROM "public"."t" AS "x"`},
		{"select ifnull(`name`,'-') AS `n` from `t`", `coalesce("public"."t"."Name", '-')`},
		{"select if(`id` > 1,'a',`id`) AS `n` from `t`", `(CASE WHEN ("public"."t"."id" > 1) THEN 'a' ELSE ("public"."t"."id")::text END)`},
		{"select concat(`name`,`id`) AS `c` from `t`", `("public"."t"."Name" || ("public"."t"."id")::text)`},
		{"select substring_index(`name`,',',2) AS `s` from `t`", `array_to_string((string_to_array("public"."t"."Name", ','))[1:2], ',')`},
		{"select substring_index(`name`,',',-1) AS `s` from `t`", `[cardinality(string_to_array("public"."t"."Name", ',')):]`},
		{"select substring_index(`name`,',',-3) AS `s` from `t`", `[greatest(cardinality(string_to_array("public"."t"."Name", ',')) - 2, 1):]`},
		{"select date_format(`born`,'%Y week %v, 100%%') AS `d` from `t`", `to_char("public"."t"."born", 'YYYY" week "IW", 100%"')`},
		{"select group_concat(distinct `name` order by `name` DESC separator '; ') AS `g` from `t`",
			`string_agg(DISTINCT "public"."t"."Name", '; ' ORDER BY "public"."t"."Name" DESC NULLS LAST)`},
		{"select `id` AS `id` from `t` order by `id` limit 5,10", `ORDER BY "public"."t"."id" NULLS FIRST LIMIT 10 OFFSET 5`},
		{"select `price` / 3 AS `q`, avg(`price`) AS `a` from `t`", `round(("public"."t"."price")::numeric / NULLIF(3, 0), 6) AS "q", round(avg("public"."t"."price"), 6)`},
		{"select now() AS `n`, curdate() AS `d`, current_timestamp(3) AS `c`", `SELECT LOCALTIMESTAMP(0) AS "n", CURRENT_DATE AS "d", LOCALTIMESTAMP(3) AS "c"`},
		{"select `born` + interval 1 day AS `d` from `t`", `(("public"."t"."born" + (1) * interval '1 days'))::date`},
		{"select `name` like 'a%' AS `l` from `t`", `(("public"."t"."Name" ILIKE 'a%'))::integer`},
		{"select `v`.`id` AS `id` from `shop`.`v` join `t` on(`v`.`id` = `t`.`id`)", `FROM "public"."v" JOIN "public"."t" ON ("public"."v"."id" = "public"."t"."id")`},
		{"select `id` AS `id` from `t` union all select `id` AS `id` from `v` order by `id`", `(SELECT "public"."t"."id" AS "id" FROM "public"."t") UNION ALL (SELECT "public"."v"."id" AS "id" FROM "public"."v") ORDER BY "id" NULLS FIRST`},
	} {
		o := translate(t, g, c.def)
		if !o.Translated() {
			t.Errorf("%s: needs a human: %s", c.def, o.Human)
			continue
		}
		if !strings.Contains(o.PG[0], c.want) {
			t.Errorf("%s:\n got %s\nwant …%s…", c.def, o.PG[0], c.want)
		}
	}
}

func TestViewNeedsHuman(t *testing.T) {
	g := testGenerator(t)
	for _, c := range []struct{ def, why string }{
		{"select `id` AS `id` from `other`", "reads shop.other, which is not a table or view in the snapshot's scope"},
		{"select `f`(`id`) AS `x` from `t`", "calls stored function shop.f"},
		{"select `id` + @x AS `x` from `t`", "variable @x"},
		{"select row_number() over (order by `id`) AS `r` from `t`", "row_number"},
		{"select `id` AS `id` from `t` group by `id` with rollup", "WITH ROLLUP"},
		{"select substring_index(`name`,',',`id`) AS `s` from `t`", "count that is not a constant"},
		{"select date_format(`born`,'%U') AS `d` from `t`", "%U"},
		{"select `name` + 1 AS `d` from `t`", "arithmetic on a text value"},
		{"select `name` = `id` AS `d` from `t`", "comparison of text with a number"},
		{"select json_extract(`name`,'$.a') AS `j` from `t`", "json_extract"},
		{"select substr(`name`,-2) AS `s` from `t`", "start that is not a positive constant"},
		{"not sql at all", "parser"},
	} {
		o := translate(t, g, c.def)
		if o.Translated() || !strings.Contains(o.Human, c.why) {
			t.Errorf("%s: needs human %q, want a reason containing %q", c.def, o.Human, c.why)
		}
	}
}

func TestTriggerTranslation(t *testing.T) {
	g := testGenerator(t)
	tr := &triggerDef{obj: &Object{Kind: KindTrigger, Database: "shop", Name: "tr"}, table: "t", timing: "BEFORE", event: "UPDATE",
		statement: "BEGIN SET NEW.name = UPPER(NEW.name), NEW.price := IFNULL(NEW.price, OLD.price); SET NEW.born = CURDATE(); END"}
	g.translateTrigger(tr)
	if !tr.obj.Translated() {
		t.Fatalf("needs a human: %s", tr.obj.Human)
	}
	for _, want := range []string{`NEW."Name" := upper(NEW."Name");`, `NEW."price" := coalesce(NEW."price", OLD."price");`,
		`NEW."born" := CURRENT_DATE;`, "RETURN NEW;", `CREATE TRIGGER "tr" BEFORE UPDATE ON "shop"."t" FOR EACH ROW EXECUTE FUNCTION "shop"."tr_trigger"()`,
		`ALTER TABLE "shop"."t" DISABLE TRIGGER "tr"`} {
		if !strings.Contains(strings.Join(tr.obj.PG, "\n"), want) {
			t.Errorf("lacks %q:\n%s", want, strings.Join(tr.obj.PG, "\n"))
		}
	}
	for _, c := range []struct{ timing, body, why string }{
		{"BEFORE", "BEGIN IF NEW.id < 0 THEN SET NEW.id = 0; END IF; END", "more than SET NEW.column"},
		{"BEFORE", "SET @x = 1", "not a NEW column"},
		{"BEFORE", "SET NEW.nope = 1", "unknown column"},
		{"AFTER", "INSERT INTO log VALUES (NEW.id)", "AFTER trigger"},
	} {
		tr := &triggerDef{obj: &Object{Kind: KindTrigger, Database: "shop", Name: "tr"}, table: "t", timing: c.timing, event: "INSERT", statement: c.body}
		g.translateTrigger(tr)
		if tr.obj.Translated() || !strings.Contains(tr.obj.Human, c.why) {
			t.Errorf("%s: needs human %q, want %q", c.body, tr.obj.Human, c.why)
		}
	}
}

func TestCronSchedule(t *testing.T) {
	for def, want := range map[string]string{
		"ON SCHEDULE EVERY 1 DAY STARTS '2026-01-01' DO x": "0 0 * * *",
		"ON SCHEDULE EVERY 15 MINUTE DO x":                 "*/15 * * * *",
		"ON SCHEDULE EVERY 2 HOUR DO x":                    "0 */2 * * *",
		"ON SCHEDULE AT '2026-01-01 00:00:00' DO x":        "<schedule>",
	} {
		if got := cronSchedule(def); got != want {
			t.Errorf("cronSchedule(%q) = %q, want %q", def, got, want)
		}
	}
}
