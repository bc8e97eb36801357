package snapshot

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/rowpolicy"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestRowPolicyDryRunAndRefusals: --dry-run shows each table's filter and
// masks; a bad policy is refused (exit 2) before anything is written.
func TestRowPolicyDryRunAndRefusals(t *testing.T) {
	env := testenv.Get(t)
	db := env.NewDatabase(t, "rp_dry")
	my := env.MySQL(t, db)
	if _, err := my.Exec(`CREATE TABLE users (id INT PRIMARY KEY, tenant INT NOT NULL, email VARCHAR(100) NOT NULL, short VARCHAR(10));
		CREATE TABLE log (id INT PRIMARY KEY, email VARCHAR(100))`); err != nil {
		t.Fatal(err)
	}
	key := []byte("0123456789abcdef0123")
	opts := testOptions(t, env, db)
	opts.DryRun = true
	var err error
	if opts.RowPolicy, err = rowpolicy.New([]string{db + ".users=tenant IN (1, 2)"}, []string{db + ".*.email=hash"}, key); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := rep.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{"-- " + db + ".users\n-- where: tenant in (1, 2)\n-- mask: email=hash (--mask " + db + ".*.email=hash)",
		"-- " + db + ".log\n-- mask: email=hash"} {
		if !strings.Contains(text, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, text)
		}
	}
	for _, c := range []struct {
		where, mask []string
		key         []byte
		want        string
	}{
		{where: []string{db + ".users=nosuch = 1"}, want: "no column"},
		{where: []string{db + ".users=tenant ="}, want: "syntax error"},
		{where: []string{db + ".users=tenant / 2 > 1"}, want: "not supported"},
		{mask: []string{db + ".users.email=hash"}, want: "needs a key"},
		{mask: []string{db + ".users.nosuch=null"}, want: "no column"},
		{mask: []string{db + ".users.short=hash"}, key: key, want: "64 hex"},
		{mask: []string{db + ".users.id=const:1"}, want: "unique key"},
	} {
		o := testOptions(t, env, db)
		if o.RowPolicy, err = rowpolicy.New(c.where, c.mask, c.key); err != nil {
			t.Fatal(err)
		}
		_, err := Run(context.Background(), o)
		if exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %v: want exit 2 with %q, got %v", c.where, c.mask, c.want, err)
		}
		var schemas int
		if err := env.PG(t).QueryRow(context.Background(), `SELECT count(*) FROM pg_namespace WHERE nspname = $1`, db).Scan(&schemas); err != nil || schemas != 0 {
			t.Errorf("%v %v: the refused run wrote to the target (%d schemas, %v)", c.where, c.mask, schemas, err)
		}
	}
}
