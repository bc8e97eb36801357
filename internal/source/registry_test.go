package source_test

import (
	"testing"

	"github.com/sluice-db/sluice/internal/source"
	_ "github.com/sluice-db/sluice/internal/source/mysql/binlog"
	_ "github.com/sluice-db/sluice/internal/source/postgres/pgoutput"
)

// The --source URL's scheme picks the source; what no source registered
// goes to the default (MySQL), whose URL parsing names the fix.
func TestOfPicksTheSourceByScheme(t *testing.T) {
	for url, want := range map[string]source.Kind{
		"mysql://u:pw@127.0.0.1:3306/shop":   source.MySQL,
		"mariadb://u@h/shop":                 source.MySQL,
		"postgres://u:pw@127.0.0.1:5432/app": source.Postgres,
		"postgresql://u@h/app":               source.Postgres,
		"POSTGRES://u@h/app":                 source.Postgres,
		"PostgreSQL://u@h/app":               source.Postgres,
		"opengauss://u@h/app":                source.MySQL, // a target only
		"kafka://h:9092":                     source.MySQL,
		"postgres:u@h/app":                   source.MySQL, // not a URL: the forward parse refuses it
		"":                                   source.MySQL,
		"shop":                               source.MySQL,
	} {
		if got := source.Of(url); got != want {
			t.Errorf("Of(%q) = %q, want %q", url, got, want)
		}
	}
}

func TestRegisterTwicePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("registering postgres again did not panic")
		}
	}()
	source.Register(source.Postgres, "postgres")
}
