package target_test

import (
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/preflight"
	mysink "github.com/sluice-db/sluice/internal/sink/mysql"
	"github.com/sluice-db/sluice/internal/target"
	_ "github.com/sluice-db/sluice/internal/target/all"
	"github.com/sluice-db/sluice/internal/verify/verifydb"
)

// TestOpenUnknownScheme: a scheme no engine registered is refused with
// config's message, which suggests postgres:// and never echoes the URL.
func TestOpenUnknownScheme(t *testing.T) {
	for raw, want := range map[string]string{
		"redis://u:secret@h:1/x": `target: URL scheme "redis" is not supported; use postgres://user:password@host:port/database`,
		"":                       "target: no URL given (--target, SLUICE_TARGET or the config file)",
		"mysql://u:secret@h:1/":  "target: no database in the URL: mysql://user:password@host:port/database names the database that receives the tables",
		"kafka://h:9092":         "target: a kafka:// URL names the brokers and the topic prefix: kafka://host:port[,host:port]/topic-prefix",
		"kafka://u:secret@h:1/p": "target: a kafka:// URL carries no user or password: kafka://host:port[,host:port]/topic-prefix",
	} {
		e, err := target.Open(raw, target.Options{})
		if err == nil || err.Error() != want {
			t.Errorf("Open(%q) = %v, %v; want error %q", raw, e, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("Open(%q): the error shows the password: %v", raw, err)
		}
	}
}

// TestOpenPicksEngineByScheme: each scheme gives its engine, whose name,
// redacted URL (the default server id depends on it) and capabilities are
// what the commands used to derive from the engine's kind.
func TestOpenPicksEngineByScheme(t *testing.T) {
	pg := target.Capabilities{DDL: target.DDLTranslate, Generated: target.GeneratedTranslated, Recopy: true, Cutover: true, Standby: true}
	my := target.Capabilities{DDL: target.DDLReplay, SourceStatements: true, KeepsSourceNames: true, RawVector: true,
		StorageEngines: true, DefaultWorkers: mysink.DefaultWorkers(), Generated: target.GeneratedComputed, Standby: true, WayBack: true}
	kafka := target.Capabilities{DDL: target.DDLTranslate, SourceStatements: true, KeepReplace: true, Generated: target.GeneratedAll}
	for _, c := range []struct {
		url, name, redacted string
		caps                target.Capabilities
	}{
		{"postgres://sluice:secret@pg1:5433/shop?sslmode=disable", "postgres", "postgres://sluice:xxxxx@pg1:5433/shop", pg},
		{"postgresql://sluice@pg1/shop", "postgres", "postgres://sluice@pg1:5432/shop", pg},
		{"opengauss://sluice:secret@og/shop", "postgres", "postgres://sluice:xxxxx@og:5432/shop", pg},
		{"mysql://root:secret@127.0.0.1:13308/replica", "mysql", "mysql://root:xxxxx@127.0.0.1:13308/replica", my},
		{"mariadb://root:secret@db2/replica", "mysql", "mysql://root:xxxxx@db2:3306/replica", my},
		{"kafka://k1:9092,k2:9092/shop", "kafka", "kafka://k1:9092,k2:9092/shop", kafka},
	} {
		e, err := target.Open(c.url, target.Options{})
		if err != nil {
			t.Errorf("Open(%s): %v", c.redacted, err)
			continue
		}
		if e.Name() != c.name || e.Redacted() != c.redacted || e.Capabilities() != c.caps {
			t.Errorf("Open(%s) = %s %s %+v; want %s %s %+v", c.redacted, e.Name(), e.Redacted(), e.Capabilities(), c.name, c.redacted, c.caps)
		}
		// verify compares the database engines only (their verifydb.Verifier facet).
		if _, ok := e.(verifydb.Verifier); ok != (c.name != "kafka") {
			t.Errorf("Open(%s): verifydb.Verifier %v, want %v", c.redacted, ok, c.name != "kafka")
		}
		if strings.Contains(e.Redacted(), "secret") {
			t.Errorf("Redacted() shows the password: %s", e.Redacted())
		}
		_, tuner := e.(target.PipelineTuner)
		if tuner != (c.name == "kafka") {
			t.Errorf("%s: PipelineTuner %v", c.name, tuner)
		}
	}
}

// TestOpenAppliesTLSFlags: the --target-ssl-* flags reach the engine's
// settings as config's ApplyTLSFlags set them, and a bad mode is refused.
func TestOpenAppliesTLSFlags(t *testing.T) {
	if _, err := target.Open("postgres://u@h/db", target.Options{TLS: config.TLSFlags{Mode: "sometimes"}}); err == nil ||
		err.Error() != `--target-ssl-mode "sometimes": want disable, require, verify-ca, verify-full or prefer` {
		t.Errorf("bad PostgreSQL TLS mode: %v", err)
	}
	if _, err := target.Open("mysql://u@h/db", target.Options{TLS: config.TLSFlags{Mode: "sometimes"}}); err == nil ||
		!strings.Contains(err.Error(), `"sometimes"`) {
		t.Errorf("bad MySQL TLS mode: %v", err)
	}
}

// TestSchemes: the registry lists every engine's schemes, the default first.
func TestSchemes(t *testing.T) {
	got := strings.Join(target.Schemes(), " ")
	if want := "postgres kafka mariadb mysql opengauss postgresql"; got != want {
		t.Errorf("Schemes() = %s, want %s", got, want)
	}
}

// TestRegisterTwicePanics: two engines cannot claim one scheme.
func TestRegisterTwicePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("registering postgres again did not panic")
		}
	}()
	target.Register(func(string, target.Options) (target.Engine, error) { return nil, nil }, "postgres")
}

// TestEngineFacets: the commands find what an engine does by asserting its
// facets, so an engine that lost one would be skipped silently (no
// pre-flight, no drop, no replicate): each engine has the facets its
// commands need, and the database engines give their parsed settings.
func TestEngineFacets(t *testing.T) {
	for _, c := range []struct {
		url          string
		checks, pg   bool
		mysqlDB      string
		dropName     string
		replicatable bool
	}{
		{"postgres://u:secret@pg1:5433/shop", true, true, "", "postgres://u:xxxxx@pg1:5433/shop", true},
		{"mysql://u:secret@db2:3307/replica", true, false, "replica", "mysql://u:xxxxx@db2:3307/replica", true},
		{"kafka://k1:9092,k2:9092/shop", false, false, "", "k1:9092,k2:9092 topic prefix shop", true},
	} {
		e, err := target.Open(c.url, target.Options{})
		if err != nil {
			t.Fatalf("Open(%s): %v", c.dropName, err)
		}
		if _, ok := e.(preflight.TargetChecker); ok != c.checks {
			t.Errorf("%s: preflight.TargetChecker %v, want %v", e.Name(), ok, c.checks)
		}
		if _, ok := e.(target.Replicated); ok != c.replicatable {
			t.Errorf("%s: target.Replicated %v, want %v", e.Name(), ok, c.replicatable)
		}
		if d, ok := e.(target.Dropper); !ok || d.DropName() != c.dropName {
			t.Errorf("%s: target.Dropper %v; want one named %q", e.Name(), ok, c.dropName)
		}
		pg, isPG := target.PostgresOf(e)
		if isPG != c.pg || isPG && pg.Database != "shop" {
			t.Errorf("%s: PostgresOf = %+v, %v", e.Name(), pg.Redacted(), isPG)
		}
		my := target.MySQLOf(e)
		if (my == nil) != (c.mysqlDB == "") || my != nil && my.Database != c.mysqlDB {
			t.Errorf("%s: MySQLOf = %v", e.Name(), my)
		}
	}
}

// TestOpenTablesRefusesKafka: a command on tables (Options.Tables) refuses
// kafka:// as it refuses any scheme it does not take, whether or not the
// URL is a valid Kafka one; the database engines open as usual.
func TestOpenTablesRefusesKafka(t *testing.T) {
	want := `target: URL scheme "kafka" is not supported; use postgres://user:password@host:port/database`
	for _, raw := range []string{"kafka://k1:9092/shop", "kafka://k1:9092"} {
		if _, err := target.Open(raw, target.Options{Tables: true}); err == nil || err.Error() != want {
			t.Errorf("Open(%s, Tables) = %v, want %q", raw, err, want)
		}
	}
	for _, raw := range []string{"postgres://u@h/db", "mysql://u@h/db"} {
		if _, err := target.Open(raw, target.Options{Tables: true}); err != nil {
			t.Errorf("Open(%s, Tables): %v", raw, err)
		}
	}
}
