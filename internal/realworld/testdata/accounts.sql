-- A user directory: deleting a user removes its logins by ON DELETE CASCADE
-- (rows the binlog does not carry), and a new user may take a freed e-mail
-- address right after.
CREATE TABLE users (
  id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  name VARCHAR(50) NOT NULL
) ENGINE=InnoDB;

CREATE TABLE logins (
  id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  user_id INT UNSIGNED NOT NULL,
  email VARCHAR(100) NOT NULL,
  UNIQUE KEY uq_email (email),
  CONSTRAINT fk_login_user FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE ON UPDATE CASCADE
) ENGINE=InnoDB;

-- Sessions get their cascading foreign key only in the middle of the stream.
CREATE TABLE sessions (
  token CHAR(32) CHARACTER SET ascii NOT NULL PRIMARY KEY,
  user_id INT UNSIGNED NOT NULL,
  KEY idx_user (user_id)
) ENGINE=InnoDB;
