package verify

import (
	"context"
	"testing"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/target"
	_ "github.com/sluice-db/sluice/internal/target/all"
)

// TestOpenTargetNeedsAVerifier: an engine without the verifydb.Verifier
// facet (Kafka's events) is refused before any connection, with exit 2
// and the target's redacted URL; a database engine has the facet.
func TestOpenTargetNeedsAVerifier(t *testing.T) {
	e, err := target.Open("kafka://k1:9092/shop", target.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = openTargetDB(context.Background(), &Options{Engine: e})
	if err == nil || exitcode.Of(err) != exitcode.Config || err.Error() != "verify: target kafka://k1:9092/shop cannot be compared" {
		t.Errorf("openTargetDB(kafka) = %v (exit %d), want exit 2 naming the target", err, exitcode.Of(err))
	}
	if _, err := openTargetDB(context.Background(), &Options{}); err == nil {
		t.Error("openTargetDB without an engine succeeded")
	}
}
