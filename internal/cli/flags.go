package cli

import (
	"github.com/sluice-db/sluice/internal/rowpolicy"
	"runtime"

	"github.com/knadh/koanf/v2"
	"github.com/spf13/cobra"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
)

// Flag groups shared by several subcommands, so a flag means the same thing
// everywhere.

const sourceUsage = "source URL: mysql://user@host:3306/database (MySQL 5.7 and later, MariaDB); env SLUICE_SOURCE; the password from --source-password-file or SLUICE_SOURCE_PASSWORD"

func addSourceFlag(cmd *cobra.Command) {
	cmd.Flags().String("source", "", sourceUsage)
	addPasswordFileFlag(cmd, "source")
	addTLSFlags(cmd, "source")
}

// addPasswordFileFlag adds --<name>-password-file for the URL flag name.
// The password itself has no flag (it would be in every local user's ps):
// SLUICE_<NAME>_PASSWORD or the config file (internal/config, secret.go).
func addPasswordFileFlag(cmd *cobra.Command, name string) {
	cmd.Flags().String(config.PasswordFileFlag(name), "", "file holding the password of the --"+name+
		" URL (mode 0600 or stricter; one line), e.g. --"+config.PasswordFileFlag(name)+" /etc/sluice/"+name+".pw; or the password itself in "+config.PasswordEnv(name))
}

// addSourceOrReverseFlag is --source of a command that also runs (or
// reports on) the way back, whose source is the PostgreSQL database.
func addSourceOrReverseFlag(cmd *cobra.Command) {
	addSourceFlag(cmd)
	cmd.Flags().Lookup("source").Usage = sourceUsage + "; or postgres://user@host:5432/database for the way back " +
		"(a reverse stream, PostgreSQL → MySQL: docs/reverse.md)"
}

// addTLSFlags adds --<side>-ssl-mode/-ca/-cert/-key: the URL's TLS
// parameters as flags (they override the URL's).
func addTLSFlags(cmd *cobra.Command, side string) {
	f := cmd.Flags()
	f.String(side+"-ssl-mode", "", "TLS to the "+side+": disable, require (no certificate check), verify-ca, verify-full or prefer; overrides the URL's tls=/sslmode=, e.g. --"+side+"-ssl-mode verify-full")
	f.String(side+"-ssl-ca", "", "CA bundle (PEM) that signed the "+side+"'s certificate, e.g. --"+side+"-ssl-ca /etc/ssl/db-ca.pem")
	f.String(side+"-ssl-cert", "", "client certificate (PEM) for the "+side+", with --"+side+"-ssl-key")
	f.String(side+"-ssl-key", "", "client certificate key (PEM) for the "+side)
}

// tlsFlags reads the --<side>-ssl-* flags.
func tlsFlags(s *Settings, side string) config.TLSFlags {
	k := s.K
	return config.TLSFlags{Mode: k.String(side + "-ssl-mode"), CA: k.String(side + "-ssl-ca"),
		Cert: k.String(side + "-ssl-cert"), Key: k.String(side + "-ssl-key")}
}

func addTargetFlag(cmd *cobra.Command) {
	cmd.Flags().String("target", "", "target URL: postgres://user@host:5432/database (PostgreSQL, openGauss), "+
		"or mysql://user@host:3306/database (MySQL, MariaDB: that database receives the tables); env SLUICE_TARGET; "+
		"the password from --target-password-file or SLUICE_TARGET_PASSWORD")
	addPasswordFileFlag(cmd, "target")
	addTLSFlags(cmd, "target")
}

// addTargetEngineFlag is for commands that create tables in a MySQL target.
func addTargetEngineFlag(cmd *cobra.Command) {
	cmd.Flags().String("target-engine", "", "MySQL target only: storage engine of every table created there (e.g. InnoDB, ROCKSDB; must be transactional); default: each source table's own engine")
}

func addScopeFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringSlice("include", nil, "tables to include as db.table patterns with * and ? (repeatable or comma-separated), e.g. --include 'shop.order*'; default: the source URL's database, or every non-system database")
	f.StringSlice("exclude", nil, "tables to leave out, same patterns as --include, e.g. --exclude 'shop.tmp_*'")
	f.StringSlice("schema-map", nil, "rename a MySQL database to a PostgreSQL schema: src=dst (repeatable), e.g. --schema-map shop=public")
	f.String("identifiers", schema.IdentPreserve, "PostgreSQL target: preserve (names keep their case, always quoted) or lower (schema, table, column, index and constraint names lower-cased)")
	f.StringSlice("rename", nil, "PostgreSQL target: a table or column's name there: db.table=new or db.table.column=new (repeatable), e.g. --rename shop.Orders=orders")
	f.StringSlice("exclude-columns", nil, "PostgreSQL target: columns that do not exist there, as db.table.column (repeatable), e.g. --exclude-columns shop.users.password_hash")
}

// namingOptions reads the naming flags (schema.NamingOptions).
func namingOptions(k *koanf.Koanf) schema.NamingOptions {
	return schema.NamingOptions{SchemaMap: k.Strings("schema-map"), Identifiers: k.String("identifiers"),
		Renames: k.Strings("rename"), ExcludeColumns: k.Strings("exclude-columns")}
}

func addTypeFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.String("zero-date", "null", "zero dates ('0000-00-00', '2020-00-15'): null (NULL in nullable columns, -infinity in NOT NULL ones), -infinity, or error")
	f.String("nul-char", "strip", "U+0000 inside text, which PostgreSQL rejects: strip, replace (with U+FFFD) or error")
}

func addWorkersFlag(cmd *cobra.Command, what string) {
	cmd.Flags().Int("workers", runtime.NumCPU(), "parallel "+what+", e.g. --workers 8")
}

func addStreamFlag(cmd *cobra.Command) {
	cmd.Flags().String("stream", checkpoint.DefaultStream, "name of the replication stream whose state is kept in the target's sluice schema (one per source)")
}

func addMetricsFlag(cmd *cobra.Command) {
	cmd.Flags().String("metrics-addr", "", "serve Prometheus /metrics and /healthz on this address, e.g. --metrics-addr 127.0.0.1:9187 (:9187 is every interface)")
	cmd.Flags().Bool("pprof", false, "also serve Go's profiler (/debug/pprof/) on --metrics-addr; it has no authentication: keep that address on 127.0.0.1")
	addStatusTokenFlag(cmd)
	addNotifyFlags(cmd)
}

func addJSONFlag(cmd *cobra.Command) {
	cmd.Flags().Bool("json", false, "print the final report as one JSON object on stdout")
}

// rowPolicyKeys are the settings of row filters and column masks
// (addRowPolicyFlags): a command without them refuses them in a config
// file instead of ignoring them.
var rowPolicyKeys = map[string]bool{"where": true, "mask": true, "mask-key-file": true}

// movesRows are the commands without those flags that copy, compare or
// repair rows: they refuse the keys (the others, status or drop, share the
// file and ignore them).
var movesRows = map[string]bool{"verify": true, "cutover": true}

func addRowPolicyFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringArray("where", nil, "move only the rows of db.table matching a SQL condition over its own columns (repeatable; see docs/filters-masks.md), e.g. --where 'shop.orders=tenant_id = 42'")
	f.StringArray("mask", nil, "rewrite a column's values before they reach the target: db.table.column=hash|null|const:<v>|keep-last:<n>|email, db.*.column for every table (repeatable), e.g. --mask 'shop.*.email=hash'")
	f.String("mask-key-file", "", "file holding the key of the hash mask (else the "+rowpolicy.KeyEnv+" environment variable; never on the command line), e.g. --mask-key-file /etc/sluice/mask.key")
}

// rowPolicy reads --where, --mask and the mask key.
func rowPolicy(k *koanf.Koanf) (*rowpolicy.Policy, error) {
	key, err := rowpolicy.LoadKey(k.String("mask-key-file"))
	if err != nil {
		return nil, err
	}
	return rowpolicy.New(k.Strings("where"), k.Strings("mask"), key)
}

// mysqlSourceFlag is --source as a MySQL URL with its --source-ssl-*
// flags; a bad one is a config error (exit 2).
func mysqlSourceFlag(s *Settings) (config.MySQL, error) {
	src, err := config.ParseSource(s.K.String("source"))
	if err == nil {
		err = src.ApplyTLSFlags("source", tlsFlags(s, "source"))
	}
	if err != nil {
		return src, exitcode.ConfigError(err)
	}
	return src, nil
}
