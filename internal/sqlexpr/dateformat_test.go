package sqlexpr

import "testing"

func TestToCharFormat(t *testing.T) {
	for in, want := range map[string]string{
		"%Y-%m-%d %H:%i:%s":   `YYYY"-"MM"-"DD" "HH24":"MI":"SS`,
		"%e %M %Y, %W %l%p":   `FMDD" "FMMonth" "YYYY", "FMDay" "FMHH12AM`,
		`say "hi" \ %q`:       `"say \"hi\" \\ q"`,
		"%D of %b %y %T.%f%%": `FMDDth" of "Mon" "YY" "HH24:MI:SS"."US"%"`,
	} {
		got, err := ToCharFormat(in)
		if err != nil || got != want {
			t.Errorf("ToCharFormat(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ToCharFormat("%X-%V"); err == nil {
		t.Error("week-year specifiers accepted")
	}
}
