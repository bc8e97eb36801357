-- Modelled on Magento / PrestaShop catalogues and orders: DECIMAL(20,6)
-- money, unsigned integers at their maxima, composite primary keys, a table
-- without any key holding duplicate rows, nullable unique keys with many
-- NULLs, VIRTUAL and STORED generated columns, JSON, BIT flags, latin1,
-- ascii and binary-collation columns next to utf8mb4, reserved words and
-- mixed case as names, and names with spaces and non-ASCII letters.

CREATE TABLE `group` (
  `key` VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  `desc` VARCHAR(255) CHARACTER SET latin1 COLLATE latin1_swedish_ci NOT NULL DEFAULT '',
  `order` INT NOT NULL DEFAULT 0,
  PRIMARY KEY (`key`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE product (
  product_id INT UNSIGNED NOT NULL AUTO_INCREMENT,
  `SKU` VARCHAR(64) CHARACTER SET latin1 NOT NULL,
  name VARCHAR(255) NOT NULL,
  slug VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  ean CHAR(13) CHARACTER SET ascii DEFAULT NULL,
  `group` VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin DEFAULT NULL,
  price DECIMAL(20,6) NOT NULL DEFAULT 0.000000,
  special_price DECIMAL(20,6) DEFAULT NULL,
  qty_tiny TINYINT UNSIGNED NOT NULL DEFAULT 0,
  qty_small SMALLINT UNSIGNED NOT NULL DEFAULT 0,
  qty_medium MEDIUMINT UNSIGNED NOT NULL DEFAULT 0,
  qty INT UNSIGNED NOT NULL DEFAULT 0,
  views BIGINT UNSIGNED NOT NULL DEFAULT 0,
  balance BIGINT NOT NULL DEFAULT 0,
  is_active BIT(1) NOT NULL DEFAULT b'1',
  flags BIT(8) NOT NULL DEFAULT b'0',
  attributes JSON DEFAULT NULL,
  name_lower VARCHAR(255) AS (LOWER(name)) VIRTUAL,
  price_incl_tax DECIMAL(20,6) AS (price * 1.2) STORED,
  sku_hash BINARY(16) NOT NULL,
  `Größe` VARCHAR(10) DEFAULT NULL,
  created_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  updated_at TIMESTAMP(3) NULL DEFAULT NULL ON UPDATE CURRENT_TIMESTAMP(3),
  PRIMARY KEY (product_id),
  UNIQUE KEY uq_sku (`SKU`),
  UNIQUE KEY uq_ean (ean),
  UNIQUE KEY uq_slug (slug),
  KEY idx_group (`group`),
  CONSTRAINT fk_product_group FOREIGN KEY (`group`) REFERENCES `group` (`key`) ON DELETE SET NULL ON UPDATE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE `order` (
  order_id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  increment_id VARCHAR(32) DEFAULT NULL,
  customer_email VARCHAR(128) DEFAULT NULL,
  state ENUM('new','processing','complete','canceled','closed') NOT NULL DEFAULT 'new',
  grand_total DECIMAL(20,6) NOT NULL DEFAULT 0.000000,
  currency CHAR(3) CHARACTER SET latin1 NOT NULL DEFAULT 'EUR',
  `desc` TEXT CHARACTER SET latin1,
  payload JSON DEFAULT NULL,
  is_gift BIT(1) DEFAULT NULL,
  created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY (order_id),
  UNIQUE KEY uq_increment_id (increment_id),
  KEY idx_state_created (state, created_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE `OrderItems` (
  order_id BIGINT UNSIGNED NOT NULL,
  line_no SMALLINT UNSIGNED NOT NULL,
  `SKU` VARCHAR(64) CHARACTER SET latin1 NOT NULL,
  product_id INT UNSIGNED DEFAULT NULL,
  qty DECIMAL(12,4) NOT NULL,
  price DECIMAL(20,6) NOT NULL,
  discount_pct TINYINT UNSIGNED NOT NULL DEFAULT 0,
  row_total DECIMAL(20,6) AS (qty * price) STORED,
  row_total_net DECIMAL(20,6) AS (qty * price * (100 - discount_pct) / 100) VIRTUAL,
  PRIMARY KEY (order_id, line_no),
  KEY idx_sku (`SKU`),
  CONSTRAINT fk_item_order FOREIGN KEY (order_id) REFERENCES `order` (order_id) ON DELETE CASCADE ON UPDATE CASCADE,
  CONSTRAINT fk_item_product FOREIGN KEY (product_id) REFERENCES product (product_id) ON DELETE SET NULL ON UPDATE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- No key at all, and duplicate rows on purpose (an append-only log).
CREATE TABLE `price history` (
  `product id` INT UNSIGNED NOT NULL,
  price DECIMAL(20,6) NOT NULL,
  `changed on` DATE NOT NULL,
  note VARCHAR(50) CHARACTER SET latin1 DEFAULT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- No primary key; a unique key over a nullable column with many NULLs.
CREATE TABLE newsletter_subscriber (
  store_id SMALLINT UNSIGNED NOT NULL DEFAULT 0,
  subscriber_email VARCHAR(150) DEFAULT NULL,
  status TINYINT NOT NULL DEFAULT 0,
  confirm_code VARCHAR(32) CHARACTER SET ascii DEFAULT NULL,
  UNIQUE KEY uq_email (subscriber_email)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- A binary primary key and counters at the unsigned maxima.
CREATE TABLE `key` (
  `key` VARBINARY(64) NOT NULL,
  `value` BIGINT UNSIGNED NOT NULL,
  `desc` VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin DEFAULT NULL,
  PRIMARY KEY (`key`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- A legacy catalogue table: utf8mb3 (MySQL's old "utf8"), floats, TIME
-- durations, YEAR, tinyint(1) flags holding other numbers, and an ENUM whose
-- invalid value '' was stored by a non-strict session.
CREATE TABLE category (
  category_id INT UNSIGNED NOT NULL AUTO_INCREMENT,
  parent_id INT UNSIGNED DEFAULT NULL,
  name VARCHAR(100) NOT NULL,
  weight FLOAT DEFAULT NULL,
  score DOUBLE NOT NULL DEFAULT 0,
  lead_time TIME DEFAULT NULL,
  since YEAR DEFAULT NULL,
  is_anchor TINYINT(1) NOT NULL DEFAULT 1,
  display_mode ENUM('PRODUCTS','PAGE','PRODUCTS_AND_PAGE') NOT NULL DEFAULT 'PRODUCTS',
  PRIMARY KEY (category_id),
  KEY idx_parent (parent_id),
  CONSTRAINT fk_category_parent FOREIGN KEY (parent_id) REFERENCES category (category_id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8;

-- Logins unique by a VIRTUAL generated column (case-insensitive e-mail).
CREATE TABLE customer_login (
  login_id INT UNSIGNED NOT NULL AUTO_INCREMENT,
  email VARCHAR(150) NOT NULL,
  email_ci VARCHAR(150) AS (LOWER(email)) VIRTUAL,
  PRIMARY KEY (login_id),
  UNIQUE KEY uq_email_ci (email_ci)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- Names PostgreSQL reserves (user, limit, offset, end, select) and CHECK
-- constraints, as newer schemas have them.
CREATE TABLE coupon (
  code VARCHAR(32) NOT NULL,
  `user` VARCHAR(64) DEFAULT NULL,
  `limit` INT UNSIGNED NOT NULL DEFAULT 1,
  `offset` SMALLINT NOT NULL DEFAULT 0,
  `end` DATETIME DEFAULT NULL,
  `select` ENUM('all','first') NOT NULL DEFAULT 'all',
  discount DECIMAL(5,2) NOT NULL,
  PRIMARY KEY (code),
  CONSTRAINT chk_discount CHECK (discount > 0 AND discount <= 100),
  CONSTRAINT chk_limit CHECK (`limit` >= `offset`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
