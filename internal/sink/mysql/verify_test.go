package mysql

import "testing"

func TestMyLiteralAndSubstitute(t *testing.T) {
	cases := []struct {
		arg  any
		want string
	}{
		{nil, "NULL"},
		{int64(-5), "-5"},
		{uint64(18446744073709551615), "18446744073709551615"},
		{[]byte("2020-01-02 03:04:05.5"), "'2020-01-02 03:04:05.5'"},
		{[]byte{}, "''"},
		{[]byte("it's"), "X'69742773'"},
		{[]byte("a\\b"), "X'615c62'"},
		{[]byte{0, 0xff}, "X'00ff'"},
		{"é", "X'c3a9'"},
	}
	for _, c := range cases {
		if got := myLiteral(c.arg); got != c.want {
			t.Errorf("myLiteral(%#v) = %s, want %s", c.arg, got, c.want)
		}
	}
	q := "INSERT INTO `d`.`t?` (`a?b`, c) VALUES (?, CONVERT(? USING latin1))"
	want := "INSERT INTO `d`.`t?` (`a?b`, c) VALUES (1, CONVERT(X'e9' USING latin1))"
	if got := substituteMy(q, []string{"1", "X'e9'"}); got != want {
		t.Errorf("substituteMy:\n got %s\nwant %s", got, want)
	}
}
