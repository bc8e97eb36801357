package ddl

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/sqlexpr"
)

// changeColumn handles MODIFY and CHANGE: the new definition replaces the
// old one entirely (a default not repeated is gone, as in MySQL).
func (a *alteration) changeColumn(oldName string, def *sqlparser.ColumnDefinition, first bool, after *sqlparser.ColName) error {
	i := a.t.ColumnIndex(oldName)
	if i < 0 {
		if lowerSet(a.x.pr.ifExists, oldName) {
			return nil
		}
		return a.x.unsupported("column %s is not in sluice's schema history of %s", oldName, a.t)
	}
	nc, err := a.parseColumn(def)
	if err != nil {
		return err
	}
	if err := a.x.checkName("column", a.x.tr.Naming.Column(a.t.TableID, nc.Name), a.t.TableID.String()+"."+nc.Name); err != nil {
		return a.x.unsupported("%v", err)
	}
	if a.excluded(a.t.Columns[i].Name) || a.excluded(nc.Name) {
		return a.changeExcluded(i, nc, def, first, after)
	}
	oldGen := translateGenerated(a.t, genMapper(a.x.tr.Mapper), a.x.tr.Naming)[i]
	a.renameInModel(a.t.Columns[i].Name, nc.Name)
	old := a.t.Columns[i]
	nc.Ordinal = old.Ordinal
	if a.inPrimaryKey(nc.Name) {
		// MySQL keeps primary key columns NOT NULL whatever the new
		// definition says (MODIFY id BIGINT AUTO_INCREMENT): so does the
		// history, and the target is not asked to DROP NOT NULL.
		nc.Nullable = false
	}
	a.t.Columns[i] = nc
	newGen := translateGenerated(a.t, genMapper(a.x.tr.Mapper), a.x.tr.Naming)[i]
	if oldGen.expr != "" || newGen.expr != "" {
		if err := a.changeGenerated(&old, &nc, oldGen, newGen); err != nil {
			return err
		}
	} else if err := a.changePlain(&old, &nc); err != nil {
		return err
	}
	if old.Comment != nc.Comment {
		if nc.Comment == "" {
			a.x.emit("COMMENT ON COLUMN " + a.qname + "." + a.qc(nc.Name) + " IS NULL")
		} else {
			a.x.emit("COMMENT ON COLUMN " + a.qname + "." + a.qc(nc.Name) + " IS " + sqlexpr.QuotePG(stripNUL(nc.Comment)))
		}
	}
	a.onUpdate = a.onUpdate || old.OnUpdateCurrentTS != nc.OnUpdateCurrentTS
	if old.AutoIncrement && !hasAutoIncrement(a.t) {
		a.t.AutoIncrement = 0 // MySQL has no counter without an AUTO_INCREMENT column
	}
	if err := a.place(i, first, after); err != nil {
		return err
	}
	return a.columnKeys(def)
}

// changeExcluded follows MODIFY/CHANGE of a column --exclude-columns leaves
// out: the schema history changes, the target has nothing to change. A
// CHANGE that would bring the column onto the target (or take one off it)
// is refused.
func (a *alteration) changeExcluded(i int, nc schema.Column, def *sqlparser.ColumnDefinition, first bool, after *sqlparser.ColName) error {
	from := a.t.Columns[i].Name
	if !a.excluded(from) || !a.excluded(nc.Name) {
		return a.x.unsupported("CHANGE COLUMN %s %s: --exclude-columns names one of them and not the other, "+
			"so the column would have to appear on or vanish from the target", from, nc.Name)
	}
	a.renameInModel(from, nc.Name)
	nc.Ordinal = a.t.Columns[i].Ordinal
	if a.inPrimaryKey(nc.Name) {
		nc.Nullable = false
	}
	a.t.Columns[i] = nc
	if err := a.place(i, first, after); err != nil {
		return err
	}
	return a.columnKeys(def)
}

// changeGenerated handles a column that is generated before or after. A
// PostgreSQL 15 generation expression cannot be altered: the column is
// dropped and added again (its values are computed, so nothing is lost).
func (a *alteration) changeGenerated(old, nc *schema.Column, oldGen, newGen generated) error {
	sameType := pgTypeOf(a, old) == pgTypeOf(a, nc)
	switch {
	case nc.GenerationExpr != "" && newGen.expr == "":
		// The target cannot compute the new expression: fine only if nothing
		// about the values changes (they stay the copied ones).
		if oldGen.expr == "" && old.GenerationExpr == nc.GenerationExpr && sameType {
			return a.changePlain(old, nc)
		}
		return a.x.unsupported("generated column %s AS (%s): %s, and the values MySQL computed for existing rows "+
			"are not in the binlog", nc.Name, nc.GenerationExpr, newGen.reason)
	case oldGen.expr != "" && nc.GenerationExpr == "":
		// generated in the target before, a plain column now: MySQL keeps the values, so does DROP EXPRESSION
		a.x.emit("ALTER TABLE " + a.qname + " ALTER COLUMN " + a.qc(nc.Name) + " DROP EXPRESSION")
		return a.changePlain(old, nc)
	case oldGen.expr == newGen.expr && sameType && old.Nullable == nc.Nullable:
		return nil
	}
	a.x.emit("ALTER TABLE " + a.qname + " DROP COLUMN " + a.qc(nc.Name))
	return a.emitAddColumn(nc)
}

func pgTypeOf(a *alteration, c *schema.Column) string {
	t, _, err := a.x.tr.Mapper.PGType(*c)
	if err != nil {
		return ""
	}
	return t
}

// changePlain changes type, member check, nullability, identity and default
// of a column that is not generated in the target.
func (a *alteration) changePlain(old, nc *schema.Column) error {
	m := a.x.tr.Mapper
	pgOld, kOld, err := m.PGType(*old)
	if err != nil {
		return a.x.unsupported("%v", err)
	}
	pgNew, kNew, err := m.PGType(*nc)
	if err != nil {
		return a.x.unsupported("%v", err)
	}
	col := a.qc(nc.Name)
	alter := "ALTER TABLE " + a.qname + " ALTER COLUMN " + col
	tc := typeChange{pgOld: pgOld, pgNew: pgNew, kOld: kOld, kNew: kNew, old: old, nw: nc, flavor: a.x.tr.Flavor}
	using, err := tc.using(col)
	if err != nil {
		return a.x.unsupported("%v", err)
	}
	if tc.zoneChange() {
		a.x.warn("%s.%s: %s → %s converted as if the statement ran with time_zone UTC; if its session used "+
			"another zone, existing rows differ from the source by that offset (sluice verify shows them)",
			a.t, nc.Name, typeLabel(old), typeLabel(nc))
	}
	if old.DataType == "binary" && nc.DataType == "binary" && nc.CharMaxLength > old.CharMaxLength {
		// MySQL pads BINARY values with zero bytes to the new length; bytea
		// keeps what it holds.
		n := strconv.FormatInt(nc.CharMaxLength, 10)
		a.x.emit("UPDATE " + a.qname + " SET " + col + " = " + col + " || decode(repeat('00', " + n + " - octet_length(" + col +
			")), 'hex') WHERE octet_length(" + col + ") < " + n)
	}
	membersChanged := (old.DataType == "enum" || old.DataType == "set" || nc.DataType == "enum" || nc.DataType == "set") &&
		(old.DataType != nc.DataType || !reflect.DeepEqual(old.Elements, nc.Elements))
	if membersChanged && (old.DataType == "enum" || old.DataType == "set") {
		a.x.emit("ALTER TABLE " + a.qname + " DROP CONSTRAINT IF EXISTS " + q(memberCheckName(old, a.x.tr.Naming.Column(a.t.TableID, nc.Name))))
	}
	identityChanged := old.AutoIncrement != nc.AutoIncrement || (nc.AutoIncrement && pgOld != pgNew)
	if old.AutoIncrement && identityChanged {
		a.dropIdentity(old, pgOld)
	}
	oldDef, _ := pgDefault(a.t, old, m)
	newDef, _ := pgDefault(a.t, nc, m)
	defaultGone := old.AutoIncrement && identityChanged
	if using != "" {
		if oldDef != "" && !defaultGone {
			a.x.emit(alter + " DROP DEFAULT") // the old default may not cast to the new type
			defaultGone = true
		}
		a.x.emit(alter + " TYPE " + pgNew + " USING " + using)
	}
	if membersChanged {
		if chk := memberCheck(a.t, nc, a.x.tr.Naming); chk != "" {
			a.x.emit("ALTER TABLE " + a.qname + " ADD " + chk)
		}
	}
	if old.Nullable != nc.Nullable {
		if nc.Nullable {
			a.x.emit(alter + " DROP NOT NULL")
		} else {
			if err := a.zeroDatesNotNull(nc); err != nil {
				return err
			}
			a.x.emit(alter + " SET NOT NULL")
		}
	}
	switch {
	case nc.AutoIncrement && identityChanged:
		return a.addIdentity(nc, pgNew, defaultGone || oldDef == "")
	case nc.AutoIncrement:
	case newDef != "" && (newDef != oldDef || defaultGone):
		a.setDefault(nc)
	case newDef == "" && oldDef != "" && !defaultGone:
		a.setDefault(nc)
	}
	return nil
}

func memberCheckName(c *schema.Column, name string) string {
	if c.DataType == "set" {
		return SetCheckName(name)
	}
	return EnumCheckName(name)
}

func (a *alteration) dropIdentity(old *schema.Column, pgOld string) {
	alter := "ALTER TABLE " + a.qname + " ALTER COLUMN " + a.qc(old.Name)
	if isIdentityType(pgOld) {
		a.x.emit(alter + " DROP IDENTITY IF EXISTS")
		return
	}
	a.x.emit(alter+" DROP DEFAULT",
		"DROP SEQUENCE IF EXISTS "+a.x.tr.Naming.QName(a.t.Database, SequenceName(a.tname(), a.x.tr.Naming.Column(a.t.TableID, old.Name))))
}

func (a *alteration) addIdentity(nc *schema.Column, pgNew string, noDefault bool) error {
	alter := "ALTER TABLE " + a.qname + " ALTER COLUMN " + a.qc(nc.Name)
	if !noDefault {
		a.x.emit(alter + " DROP DEFAULT")
	}
	if isIdentityType(pgNew) {
		a.x.emit(alter + " ADD GENERATED BY DEFAULT AS IDENTITY")
	} else {
		seq := a.x.tr.Naming.QName(a.t.Database, SequenceName(a.tname(), a.x.tr.Naming.Column(a.t.TableID, nc.Name)))
		a.x.emit("CREATE SEQUENCE IF NOT EXISTS "+seq+" AS bigint",
			alter+" SET DEFAULT nextval("+sqlexpr.QuotePG(seq)+"::regclass)",
			"ALTER SEQUENCE "+seq+" OWNED BY "+a.qname+"."+a.qc(nc.Name))
	}
	if a.t.AutoIncrement == 0 {
		a.t.AutoIncrement = 1
	}
	a.x.emit(identityFinish(a.qname, a.t, a.x.tr.Naming)...)
	return nil
}

func (a *alteration) inPrimaryKey(name string) bool {
	for _, c := range a.t.PrimaryKey {
		if strings.EqualFold(c, name) {
			return true
		}
	}
	return false
}

// zeroDatesNotNull runs before a DATE/DATETIME/TIMESTAMP column becomes NOT
// NULL on the target. MySQL only allows that when no row holds NULL (or, not
// strict, turns NULLs into zero dates), so a NULL on the target stands for a
// zero date that the zero-date policy wrote as NULL while the column was
// nullable; in a NOT NULL column the policy writes -infinity, and so does
// this. Under --zero-date=error the target has no zero dates: nothing to do.
func (a *alteration) zeroDatesNotNull(c *schema.Column) error {
	switch c.DataType {
	case "date", "datetime", "timestamp":
	default:
		return nil
	}
	value := "'-infinity'"
	if c.DataType == "timestamp" && a.x.tr.Flavor == "mariadb" {
		// MariaDB gives a TIMESTAMP column's NULLs the statement's time
		// (MySQL refuses the change while NULLs are there).
		now, err := a.x.statementTime(int(c.FracDigits))
		if err != nil {
			return a.x.unsupported("%s.%s becomes NOT NULL: %v", a.t, c.Name, err)
		}
		value = now
	} else if a.x.tr.Mapper.Options().ZeroDate == "error" {
		return nil
	}
	a.x.emit("UPDATE " + a.qname + " SET " + a.qc(c.Name) + " = " + value + " WHERE " + a.qc(c.Name) + " IS NULL")
	return nil
}

// statementTime is the time the source ran the statement, as the PostgreSQL
// literal of a timestamptz with fsp fractional digits (MySQL's
// CURRENT_TIMESTAMP(fsp)).
func (x *translation) statementTime(fsp int) (string, error) {
	if x.at.IsZero() {
		return "", fmt.Errorf("existing rows get the source's current time, and the statement's time is not known")
	}
	at := x.at.UTC().Truncate(time.Microsecond * time.Duration(pow10(6-min(max(fsp, 0), 6))))
	return "'" + at.Format("2006-01-02 15:04:05.999999") + "+00'::timestamptz", nil
}

func pow10(n int) int64 {
	p := int64(1)
	for ; n > 0; n-- {
		p *= 10
	}
	return p
}
