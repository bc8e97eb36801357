package ddl

import (
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

// ApplySetting is the PostgreSQL session setting sluice's apply sessions set
// to 'on' (SET LOCAL sluice.apply = 'on'): the ON UPDATE CURRENT_TIMESTAMP
// triggers then keep the replicated values exactly.
const ApplySetting = "sluice.apply"

// onUpdateTrigger emulates ON UPDATE CURRENT_TIMESTAMP with a BEFORE UPDATE
// trigger: when a row changes and an ON UPDATE column was not changed by the
// statement, the column gets the current time. It does nothing in sluice's
// own apply sessions.
func onUpdateTrigger(t *schema.Table, m *typemap.Mapper, n schema.Naming) []string {
	var sets []string
	for _, c := range t.Columns {
		if !c.OnUpdateCurrentTS || n.Excluded(t.TableID, c.Name) {
			continue
		}
		_, kind, err := m.PGType(c)
		if err != nil {
			continue // CreateTable already failed on this column
		}
		now := "LOCALTIMESTAMP"
		if kind == typemap.KindTimestamp {
			now = "CURRENT_TIMESTAMP"
		}
		col := n.QColumn(t.TableID, c.Name)
		sets = append(sets, "    IF NEW."+col+" IS NOT DISTINCT FROM OLD."+col+" THEN NEW."+col+" := "+now+"; END IF;\n")
	}
	if len(sets) == 0 {
		return nil
	}
	fn := n.QName(t.Database, OnUpdateFunction(n.Table(t.TableID)))
	body := "CREATE OR REPLACE FUNCTION " + fn + "() RETURNS trigger LANGUAGE plpgsql AS $sluice$\n" +
		"BEGIN\n" +
		"  IF current_setting('" + ApplySetting + "', true) = 'on' THEN RETURN NEW; END IF;\n" +
		"  IF NEW IS DISTINCT FROM OLD THEN\n" +
		strings.Join(sets, "") +
		"  END IF;\n" +
		"  RETURN NEW;\n" +
		"END\n$sluice$"
	trigger := "CREATE OR REPLACE TRIGGER " + q(OnUpdateTrigger) + " BEFORE UPDATE ON " + n.QTable(t.TableID) +
		" FOR EACH ROW EXECUTE FUNCTION " + fn + "()"
	return []string{body, trigger}
}
