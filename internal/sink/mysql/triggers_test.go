package mysql

import "testing"

// TestDropTriggersAdviceQuotesNames: the DROP TRIGGER the advice prints runs
// as printed, for names with a backtick too (doubled inside the quotes).
func TestDropTriggersAdviceQuotesNames(t *testing.T) {
	got := DropTriggersAdvice([]Trigger{
		{Database: "shop", Table: "orders", Name: "audit"},
		{Database: "we`ird", Table: "t", Name: "tr`g"},
	}, "later")
	want := "save them (SHOW CREATE TRIGGER), drop them (DROP TRIGGER `shop`.`audit`, `we``ird`.`tr``g`) and create them again later"
	if got != want {
		t.Errorf("DropTriggersAdvice =\n %s\nwant\n %s", got, want)
	}
}
