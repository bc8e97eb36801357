package realworld

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestEmployees migrates an HR schema with a RANGE-partitioned salaries
// table (a plain table in PostgreSQL) under a load of hires, raises that move
// rows between partitions (a primary key change), departures that cascade,
// department renumbering (CHAR(4) key, ON UPDATE CASCADE) and partition
// maintenance sluice treats as a no-op (REORGANIZE PARTITION). Afterwards a
// TRUNCATE PARTITION, which removes rows without row events, must stop
// replication with an error that names it.
func TestEmployees(t *testing.T) {
	t.Parallel()
	testenv.Flavors(t, testEmployees)
}

func testEmployees(t *testing.T, env *testenv.Env) {
	m := employeesScenario(env).run(t)

	compareTable(t, m, "employees", 2500, plain("emp_no"), plain("birth_date"), plain("first_name"), plain("last_name"),
		plain("gender"), plain("hire_date"), plain("email"))
	compareTable(t, m, "salaries", 6000, plain("emp_no"), plain("salary"), plain("from_date"), plain("to_date"), plain("currency"))
	compareTable(t, m, "dept_emp", 2000, plain("emp_no"), plain("dept_no"), plain("from_date"), plain("to_date"))
	compareTable(t, m, "dept_manager", 10, plain("emp_no"), plain("dept_no"), plain("from_date"), plain("to_date"))
	compareTable(t, m, "titles", 2500, plain("emp_no"), plain("title"), plain("from_date"), plain("to_date"))
	compareTable(t, m, "departments", 7, plain("dept_no"), plain("dept_title"))

	// The partitioned table is one plain table in PostgreSQL.
	var relkind string
	if err := m.pg.QueryRow(context.Background(), `SELECT c.relkind::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relname = 'salaries'`, m.db).Scan(&relkind); err != nil || relkind != "r" {
		t.Errorf("target salaries: relkind %q (%v), want a plain table", relkind, err)
	}

	// TRUNCATE PARTITION deletes rows without row events: replication must
	// stop and say which statement and how to go on.
	if _, err := m.my.Exec("ALTER TABLE salaries TRUNCATE PARTITION p1990"); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "truncate.log")
	code := runSluice(t, testenv.SluiceBinary(t), logPath, "replicate", "--until-caught-up", "--log-level", "warn",
		"--source", m.sourceURL, "--target", m.targetURL, "--include", m.db, "--stream", m.stream)
	out := tailFile(logPath, 20)
	if code != 1 || !strings.Contains(out, "TRUNCATE PARTITION") || !strings.Contains(out, "--skip-ddl") {
		t.Errorf("replicate over TRUNCATE PARTITION: exit %d, want 1 with an error naming the statement and --skip-ddl:\n%s", code, out)
	}
}

// employeesScenario is the HR schema with a partitioned salaries table,
// cascades, key changes and type changes mid-stream.
func employeesScenario(env *testenv.Env) scenario {
	var seq atomic.Int64
	return scenario{
		env:        env,
		prefix:     "rw_emp",
		schemaFile: "employees.sql",
		seed:       seedEmployees,
		write:      func(my *sql.DB, rng *rand.Rand) error { return employeesWrite(my, rng, seq.Add(1)) },
		midStream: []string{
			"ALTER TABLE employees ADD COLUMN email VARCHAR(100) NOT NULL DEFAULT 'unknown@example.com', ADD INDEX idx_hire_date (hire_date)",
			"ALTER TABLE salaries REORGANIZE PARTITION pmax INTO (PARTITION p2020 VALUES LESS THAN (2020), PARTITION pmax VALUES LESS THAN MAXVALUE)",
			"ALTER TABLE salaries ADD COLUMN currency CHAR(3) NOT NULL DEFAULT 'USD'",
			"UPDATE departments SET dept_no = 'd099' WHERE dept_no = 'd009'",
			"DELETE FROM departments WHERE dept_no = 'd008'",
			// A backfill of the new column: one 3,000-row transaction.
			"UPDATE employees SET email = CONCAT(LOWER(first_name), '.', emp_no, '@example.com')",
			// Type and name changes of columns the load writes.
			"ALTER TABLE salaries MODIFY salary BIGINT NOT NULL",
			"ALTER TABLE employees MODIFY first_name VARCHAR(50) NOT NULL",
			"ALTER TABLE departments CHANGE dept_name dept_title VARCHAR(60) NOT NULL",
			// Next year's salaries in one statement: thousands of rows into another partition.
			"INSERT IGNORE INTO salaries (emp_no, salary, from_date, to_date) SELECT emp_no, salary + 1000, '2027-01-01', '9999-01-01' FROM salaries WHERE to_date = '9999-01-01' AND from_date < '2027-01-01'",
		},
	}
}

// TestEmployeesIntoMySQL runs the employees scenario (from both flavors) into a
// MariaDB target on InnoDB, where salaries stays partitioned as on the source:
// every table byte for byte, then damage found and repaired.
func TestEmployeesIntoMySQL(t *testing.T) {
	t.Parallel()
	intoMySQLFlavors(t, testEmployeesIntoMySQL)
}

func testEmployeesIntoMySQL(t *testing.T, env *testenv.Env) {
	s := employeesScenario(env)
	s.into = intoMySQL("InnoDB")
	m := s.run(t)
	compareBytes(t, m)
	if t.Failed() {
		return
	}
	damageAndRepair(t, m, []string{
		"UPDATE " + m.q("salaries") + " SET salary = salary + 1 ORDER BY emp_no, from_date LIMIT 1",
		"DELETE FROM " + m.q("titles") + " ORDER BY emp_no DESC, title, from_date LIMIT 1",
		"UPDATE " + m.q("departments") + " SET dept_title = 'Tampered' ORDER BY dept_no LIMIT 1",
	}, "salaries", "titles", "departments")
	compareBytes(t, m)

	// TRUNCATE PARTITION deletes rows without row events: as into
	// PostgreSQL, replication stops and names it (the MySQL sink could replay
	// it, but the stream cannot tell which rows it removed).
	if _, err := m.my.Exec("ALTER TABLE salaries TRUNCATE PARTITION p1990"); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "truncate.log")
	code := runSluice(t, testenv.SluiceBinary(t), logPath, "replicate", "--until-caught-up", "--log-level", "warn",
		"--source", m.sourceURL, "--target", m.targetURL, "--include", m.db, "--stream", m.stream)
	out := tailFile(logPath, 20)
	if code != 1 || !strings.Contains(out, "TRUNCATE PARTITION") || !strings.Contains(out, "--skip-ddl") {
		t.Errorf("replicate over TRUNCATE PARTITION: exit %d, want 1 with an error naming the statement and --skip-ddl:\n%s", code, out)
	}
}

func seedEmployees(t *testing.T, my flavorDB) {
	t.Helper()
	_, err := my.Exec(`
INSERT INTO employees SELECT 10000 + seq, '1952-02-29' + INTERVAL (seq * 7) % 5000 DAY,
  ELT(1 + seq % 6, 'Georgi', 'Bezalel', 'Parto', 'Chirstian', 'Kyoichi', 'Anneke'),
  ELT(1 + seq % 5, 'Facello', 'Simmel', 'Bamford', 'Koblick', 'Maliniak'), IF(seq % 2 = 0, 'M', 'F'),
  '1985-01-01' + INTERVAL (seq * 3) % 9000 DAY FROM seq_1_to_3000;
INSERT INTO departments VALUES ('d001', 'Marketing'), ('d002', 'Finance'), ('d003', 'Human Resources'),
  ('d004', 'Production'), ('d005', 'Development'), ('d006', 'Quality Management'), ('d007', 'Sales'),
  ('d008', 'Research'), ('d009', 'Customer Service');
INSERT INTO dept_emp SELECT emp_no, CONCAT('d00', 1 + emp_no % 9), hire_date, IF(emp_no % 10 = 0, hire_date + INTERVAL 3 YEAR, '9999-01-01') FROM employees;
INSERT INTO dept_manager SELECT emp_no, CONCAT('d00', 1 + emp_no % 9), hire_date, '9999-01-01' FROM employees WHERE emp_no < 10019;
INSERT INTO titles SELECT emp_no, ELT(1 + emp_no % 4, 'Engineer', 'Senior Engineer', 'Staff', 'Technique Leader'), hire_date,
  IF(emp_no % 3 = 0, NULL, '9999-01-01') FROM employees;
INSERT INTO salaries SELECT e.emp_no, 40000 + (e.emp_no * 13 + y.seq * 1000) % 60000, e.hire_date + INTERVAL y.seq YEAR,
  IF(y.seq = 3, '9999-01-01', e.hire_date + INTERVAL y.seq + 1 YEAR) FROM employees e JOIN seq_0_to_3 y;`)
	if err != nil {
		t.Fatalf("seed: %v", err)
	}
}

// employeesWrite runs one transaction of an HR department; n is unique.
func employeesWrite(my *sql.DB, rng *rand.Rand, n int64) error {
	emp := 10001 + rng.IntN(3000)
	switch rng.IntN(7) {
	case 0, 1: // a hire: employee, department, title and salary in one transaction
		id := 100000 + n
		return inTxn(my, func(tx *sql.Tx) error {
			return execAll(tx,
				fmt.Sprintf("INSERT INTO employees (emp_no, birth_date, first_name, last_name, gender, hire_date) VALUES (%d, '1990-06-15', 'New', 'Hire', 'F', CURDATE())", id),
				fmt.Sprintf("INSERT INTO dept_emp SELECT %d, MIN(dept_no), CURDATE(), '9999-01-01' FROM departments", id),
				fmt.Sprintf("INSERT INTO titles VALUES (%d, 'Engineer', CURDATE(), NULL)", id),
				fmt.Sprintf("INSERT INTO salaries (emp_no, salary, from_date, to_date) VALUES (%d, %d, CURDATE(), '9999-01-01')", id, 50000+rng.IntN(1000)))
		})
	case 2: // a raise: the current salary ends, a new one starts (another partition)
		return inTxn(my, func(tx *sql.Tx) error {
			return errorsFirst(
				exec(tx, "UPDATE salaries SET to_date = '2025-12-31' WHERE emp_no = ? AND to_date = '9999-01-01' AND from_date < '2025-12-31'", emp),
				exec(tx, "INSERT IGNORE INTO salaries (emp_no, salary, from_date, to_date) VALUES (?, ?, '2026-01-01' + INTERVAL ? DAY, '9999-01-01')",
					emp, 60000+rng.IntN(9000), n%300))
		})
	case 3: // a back-dated correction moves a row to an older partition (primary key change)
		_, err := my.Exec(`UPDATE IGNORE salaries SET from_date = from_date - INTERVAL 6 YEAR, salary = salary - 1
			WHERE emp_no = ? ORDER BY from_date LIMIT 1`, emp)
		return err
	case 4: // a departure: dept_emp, dept_manager and titles cascade; salaries has no FK
		return inTxn(my, func(tx *sql.Tx) error {
			return errorsFirst(
				exec(tx, "DELETE FROM salaries WHERE emp_no = ?", emp),
				exec(tx, "DELETE FROM employees WHERE emp_no = ?", emp))
		})
	case 5: // a transfer: the dept_emp primary key changes
		_, err := my.Exec(`UPDATE IGNORE dept_emp SET dept_no = (SELECT MAX(dept_no) FROM departments), from_date = CURDATE()
			WHERE emp_no = ?`, emp)
		return err
	default: // a promotion
		_, err := my.Exec(`INSERT INTO titles VALUES (?, 'Senior Engineer', '2026-01-01' + INTERVAL ? DAY, NULL)
			ON DUPLICATE KEY UPDATE to_date = '9999-01-01'`, emp, n%1000)
		if mysqlErrNumber(err) == 1452 { // the employee left
			return nil
		}
		return err
	}
}
