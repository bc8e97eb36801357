package testenv

import (
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

// Kafka returns the seed brokers of the test Kafka (SLUICE_TEST_KAFKA, host:port[,host:port];
// `scripts/sandbox env` exports the sandbox's 127.0.0.1:19092). Unset, the test is skipped, or,
// when CI=true, failed; set but unreachable, it fails.
func (e *Env) Kafka(t testing.TB) []string {
	t.Helper()
	v := strings.TrimSpace(os.Getenv("SLUICE_TEST_KAFKA"))
	if v == "" {
		if InCI() {
			t.Fatalf("testenv: CI=true but SLUICE_TEST_KAFKA is not set (`bash scripts/sandbox start` starts Kafka on 127.0.0.1:19092)")
		}
		t.Skip("testenv: SLUICE_TEST_KAFKA is not set; `bash scripts/sandbox start` starts Kafka on 127.0.0.1:19092 and `scripts/sandbox env` exports it")
	}
	brokers := strings.Split(v, ",")
	c, err := net.DialTimeout("tcp", brokers[0], 5*time.Second)
	if err != nil {
		t.Fatalf("testenv: SLUICE_TEST_KAFKA=%s does not accept connections: %v", v, err)
	}
	_ = c.Close()
	return brokers
}
