package stream_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestStreamPasswordFile: a shard's URL without a password connects with
// the password from --source-password-file (the one URL flag of stream); a
// wrong one exits 2 without showing it.
func TestStreamPasswordFile(t *testing.T) {
	env := testenv.Get(t)
	brokers := env.Kafka(t)
	name := env.NewDatabase(t, "kpwfile")
	db := env.MySQL(t, name)
	mustExec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, n INT NOT NULL, s VARCHAR(40))", "INSERT INTO t VALUES "+seedRows(5))
	src, pw := testenv.SplitPassword(t, env.SourceURL(name))
	dir := t.TempDir()
	good, wrong := filepath.Join(dir, "good.pw"), filepath.Join(dir, "wrong.pw")
	const wrongPW = "WrongStreamPw-4711"
	for f, content := range map[string]string{good: pw + "\n", wrong: wrongPW + "\n"} {
		if err := os.WriteFile(f, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	run := func(file string) (string, int) {
		out, err := runWithTimeout(testenv.SluiceCommand(testenv.SluiceBinary(t), "stream", "--source", src,
			"--source-password-file", file, "--kafka", strings.Join(brokers, ","), "--topic-prefix", name, "--until-caught-up"), 3*time.Minute)
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return out, ee.ExitCode()
		}
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return out, 0
	}
	if out, code := run(good); code != 0 {
		t.Fatalf("stream with --source-password-file: exit %d\n%s", code, out)
	}
	topic := name + "." + name + ".t"
	compareRows(t, "the shard read with the file's password", rebuild(t, consume(t, brokers, topic), topic, 0), sourceRows(t, db, "t"))
	out, code := run(wrong)
	if code != 2 || strings.Contains(out, wrongPW) {
		t.Errorf("a wrong password: exit %d (want 2, the password never shown)\n%s", code, out)
	}
}
