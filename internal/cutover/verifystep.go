package cutover

import (
	"context"
	"fmt"
	"strings"

	"github.com/sluice-db/sluice/internal/verify"
)

// verify is step 4: both sides equal at chunk level (unless --skip-verify),
// and no unique key value of PostgreSQL that MySQL would see twice.
func (r *run) verify(ctx context.Context) (string, error) {
	var detail []string
	if r.o.Verify != nil {
		vo := *r.o.Verify
		vo.Online = verify.OnlineOff // the writes stopped: a difference is a difference
		vo.Stream = r.o.Stream
		rep, err := verify.Run(ctx, vo)
		if err != nil {
			return "", fmt.Errorf("verify: %w", err)
		}
		if rep.Result != verify.ResultEqual {
			var bad []string
			for _, t := range rep.Tables {
				switch t.Result {
				case verify.ResultEqual:
				case verify.ResultError:
					bad = append(bad, fmt.Sprintf("%s: %s", t.Table, t.Error))
				default:
					bad = append(bad, fmt.Sprintf("%s: %d only in the source, %d only in the target, %d differ",
						t.Table, t.OnlyInSource, t.OnlyInTarget, t.Differing))
				}
			}
			return "", fmt.Errorf("the target differs from the source (%s); run `sluice verify` for the rows, `--repair` to fix them, then cutover again",
				strings.Join(bad, "; "))
		}
		detail = append(detail, fmt.Sprintf("%d tables equal (%d rows)", len(rep.Tables), rep.Rows))
	} else {
		detail = append(detail, "chunk verification skipped (--skip-verify)")
	}
	cs, err := r.collisions(ctx)
	if err != nil {
		return "", err
	}
	if len(cs) > 0 {
		r.rep.Collisions = cs
		s := make([]string, len(cs))
		for i, c := range cs {
			s[i] = c.String()
		}
		return "", fmt.Errorf("values that differ in PostgreSQL would collide in MySQL's unique keys after a fallback "+
			"(MySQL's collation compares them as equal): %s; make them distinct on both sides first", strings.Join(s, "; "))
	}
	detail = append(detail, "no unique key value collides under MySQL's collations")
	return strings.Join(detail, "; "), nil
}
