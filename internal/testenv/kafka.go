package testenv

import (
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

// Kafka returns the seed brokers of the test Kafka: SLUICE_TEST_KAFKA (host:port[,host:port];
// `scripts/sandbox env` exports it), or else the sandbox's default 127.0.0.1:19092
// (SLUICE_KAFKA_PORT) when it answers. Without one the test is skipped, or, when CI=true,
// failed; a SLUICE_TEST_KAFKA that does not answer fails it.
func (e *Env) Kafka(t testing.TB) []string {
	t.Helper()
	v := strings.TrimSpace(os.Getenv("SLUICE_TEST_KAFKA"))
	if v == "" {
		def := "127.0.0.1:" + envOr("SLUICE_KAFKA_PORT", "19092")
		if reachable(def) {
			return []string{def}
		}
		if InCI() {
			t.Fatalf("testenv: CI=true but no Kafka: SLUICE_TEST_KAFKA is not set and %s does not answer (`bash scripts/sandbox start` starts one)", def)
		}
		t.Skipf("testenv: no Kafka: SLUICE_TEST_KAFKA is not set and %s does not answer; `bash scripts/sandbox start` starts one", def)
	}
	brokers := strings.Split(v, ",")
	if !reachable(brokers[0]) {
		t.Fatalf("testenv: SLUICE_TEST_KAFKA=%s does not accept connections", v)
	}
	return brokers
}

func reachable(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return false
	}
	_ = c.Close()
	return true
}
