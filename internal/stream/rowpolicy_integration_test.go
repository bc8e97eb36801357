package stream_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/rowpolicy"
	"github.com/sluice-db/sluice/internal/stream"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestStreamRowPolicy: a tenant filter and three masks in Kafka: the
// snapshot copies only the matching rows, masked; updates that move rows in
// and out of the filter become creates and deletes; the topic, rebuilt as
// a consumer would, equals the source filtered and masked in SQL, and no
// seeded clear value is in any record's key or value.
func TestStreamRowPolicy(t *testing.T) {
	env := testenv.GetFlavor(t, testenv.MariaDB)
	brokers := env.Kafka(t)
	dbName := env.NewDatabase(t, "krp")
	db := env.MySQL(t, dbName)
	mustExec(t, db, "CREATE TABLE c (id INT PRIMARY KEY, tenant INT NOT NULL, email VARCHAR(100) NOT NULL, phone VARCHAR(20) NULL, name VARCHAR(50) NULL, note VARCHAR(20) NULL)")
	insert := func(from, to int) {
		for id := from; id <= to; id++ {
			mustExec(t, db, fmt.Sprintf("INSERT INTO c VALUES (%d, %d, 'canary-%d@leak.example', '555-0100-%d', 'Canary Name %d', 'n%d')", id, id%2+1, id, id, id, id))
		}
	}
	insert(1, 16)
	key := []byte("test-mask-key-0123456789")
	pol, err := rowpolicy.New([]string{dbName + ".c=tenant = 1"},
		[]string{dbName + ".c.email=hash", dbName + ".*.phone=keep-last:4", dbName + ".c.name=null"}, key)
	if err != nil {
		t.Fatal(err)
	}
	o := stream.Options{Sources: []config.MySQL{source(t, env.SourceURL(dbName))}, Brokers: brokers, Prefix: dbName, RowPolicy: pol}
	if err := runStream(t, o); err != nil {
		t.Fatal(err)
	}
	insert(17, 30)
	mustExec(t, db, "UPDATE c SET tenant = 1 WHERE id IN (1, 3, 5)", "UPDATE c SET tenant = 2 WHERE id IN (2, 4)",
		"UPDATE c SET email = CONCAT('canary-new-', id, '@leak.example') WHERE id IN (6, 7, 8)",
		"UPDATE c SET note = 'outside' WHERE tenant = 2", "DELETE FROM c WHERE id IN (10, 11)")
	if err := runStream(t, o); err != nil {
		t.Fatal(err)
	}
	topic := dbName + "." + dbName + ".c"
	evs := consume(t, brokers, topic)
	for _, e := range evs {
		if text := string(e.Key) + fmt.Sprint(e.Value); strings.Contains(strings.ToLower(text), "canary") || strings.Contains(text, "555-0100") {
			t.Fatalf("a clear masked value in Kafka: %.400s", text)
		}
	}
	var got []string
	for _, r := range rebuild(t, evs, topic, 0) {
		got = append(got, fmt.Sprintf("%v|%v|%v|%v|%v|%v", r["id"], r["tenant"], r["email"], r["phone"], nullText(r["name"]), r["note"]))
	}
	sort.Slice(got, func(i, j int) bool { return idOf(got[i]) < idOf(got[j]) })
	var want []string
	for _, r := range testenv.MySQLRows(t, db, "SELECT id, tenant, email, CONCAT(REPEAT('*', CHAR_LENGTH(phone) - 4), RIGHT(phone, 4)), 'NULL', note FROM c WHERE tenant = 1 ORDER BY id") {
		f := strings.Split(r, "|")
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(f[2]))
		f[2] = hex.EncodeToString(mac.Sum(nil))
		want = append(want, strings.Join(f, "|"))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || len(want) != 15 {
		t.Fatalf("rebuilt topic (%d rows):\n%s\nwant (%d rows):\n%s", len(got), strings.Join(got, "\n"), len(want), strings.Join(want, "\n"))
	}
}

func nullText(v any) any {
	if v == nil {
		return "NULL"
	}
	return v
}

func idOf(row string) int {
	var id int
	fmt.Sscan(strings.SplitN(row, "|", 2)[0], &id)
	return id
}
