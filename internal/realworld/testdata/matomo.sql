-- Modelled on Matomo 4/5's tables for MySQL (core/Db/Schema/Mysql.php and the
-- log dimensions' columns), with the default matomo_ prefix: BINARY(8)
-- visitor and config ids, VARBINARY(16) IPs (4 bytes for IPv4, 16 for IPv6),
-- TINYINT(1) flags that hold more than 0 and 1, odd display widths
-- (TINYINT(100), BIGINT(10)), MEDIUMINT UNSIGNED counters, a TIME local
-- time, DECIMAL(9,6) coordinates, an index with a DESC part, wide log tables
-- (log_visit trimmed to 50 columns, log_link_visit_action to 30), and one
-- archive table pair per month (numeric DOUBLE values, BLOB values, created
-- by the archiver as months begin). Trimmed to its characteristic tables, at
-- Matomo 3.x where the mid-stream upgrades begin (visitor_days_since_first,
-- no pageview_position, no site.creator_login).

CREATE TABLE `matomo_site` (
  `idsite` INTEGER(10) UNSIGNED NOT NULL AUTO_INCREMENT,
  `name` VARCHAR(90) NOT NULL,
  `main_url` VARCHAR(255) NOT NULL,
  `ts_created` TIMESTAMP NULL,
  `ecommerce` TINYINT DEFAULT 0,
  `sitesearch` TINYINT DEFAULT 1,
  `sitesearch_keyword_parameters` TEXT NOT NULL,
  `timezone` VARCHAR(50) NOT NULL,
  `currency` CHAR(3) NOT NULL,
  `exclude_unknown_urls` TINYINT(1) DEFAULT 0,
  `excluded_ips` TEXT NOT NULL,
  `type` VARCHAR(255) NOT NULL,
  PRIMARY KEY (`idsite`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE `matomo_log_action` (
  `idaction` INTEGER(10) UNSIGNED NOT NULL AUTO_INCREMENT,
  `name` VARCHAR(4096),
  `hash` INTEGER(10) UNSIGNED NOT NULL,
  `type` TINYINT UNSIGNED NULL,
  `url_prefix` TINYINT(2) NULL,
  PRIMARY KEY (`idaction`),
  INDEX `index_type_hash` (`type`, `hash`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE `matomo_log_visit` (
  `idvisit` BIGINT(10) UNSIGNED NOT NULL AUTO_INCREMENT,
  `idsite` INTEGER(10) UNSIGNED NOT NULL,
  `idvisitor` BINARY(8) NOT NULL,
  `visit_last_action_time` DATETIME NOT NULL,
  `config_id` BINARY(8) NOT NULL,
  `location_ip` VARBINARY(16) NOT NULL,
  `profilable` TINYINT(1) NULL,
  `user_id` VARCHAR(200) NULL,
  `visit_first_action_time` DATETIME NOT NULL,
  `visit_goal_buyer` TINYINT(1) NULL,
  `visit_goal_converted` TINYINT(1) NULL,
  `visitor_returning` TINYINT(1) NULL,
  `visitor_days_since_first` SMALLINT(5) UNSIGNED NULL,
  `visitor_seconds_since_order` INT(11) UNSIGNED NULL,
  `visitor_count_visits` INT(11) UNSIGNED NOT NULL DEFAULT 0,
  `visit_entry_idaction_name` INTEGER(10) UNSIGNED NULL,
  `visit_entry_idaction_url` INTEGER(11) UNSIGNED NULL DEFAULT NULL,
  `visit_exit_idaction_name` INTEGER(10) UNSIGNED NULL,
  `visit_exit_idaction_url` INTEGER(10) UNSIGNED NULL DEFAULT 0,
  `visit_total_actions` INT(11) UNSIGNED NULL,
  `visit_total_interactions` MEDIUMINT UNSIGNED NULL DEFAULT 0,
  `visit_total_searches` SMALLINT(5) UNSIGNED NULL,
  `referer_keyword` VARCHAR(255) NULL,
  `referer_name` VARCHAR(255) NULL,
  `referer_type` TINYINT(1) UNSIGNED NULL,
  `referer_url` VARCHAR(1500) NULL,
  `location_browser_lang` VARCHAR(20) NULL,
  `config_browser_engine` VARCHAR(10) NULL,
  `config_browser_name` VARCHAR(40) NULL,
  `config_browser_version` VARCHAR(20) NULL,
  `config_client_type` TINYINT(1) NULL DEFAULT NULL,
  `config_device_brand` VARCHAR(100) NULL DEFAULT NULL,
  `config_device_model` VARCHAR(100) NULL DEFAULT NULL,
  `config_device_type` TINYINT(100) NULL DEFAULT NULL,
  `config_os` CHAR(3) NULL,
  `config_os_version` VARCHAR(100) NULL DEFAULT NULL,
  `visit_total_events` INT(11) UNSIGNED NULL,
  `visitor_localtime` TIME NULL,
  `visitor_seconds_since_last` INT(11) UNSIGNED NULL,
  `config_resolution` VARCHAR(18) NULL,
  `config_cookie` TINYINT(1) NULL,
  `config_flash` TINYINT(1) NULL,
  `config_java` TINYINT(1) NULL,
  `config_pdf` TINYINT(1) NULL,
  `location_city` VARCHAR(255) NULL DEFAULT NULL,
  `location_country` CHAR(3) NULL,
  `location_latitude` DECIMAL(9, 6) NULL DEFAULT NULL,
  `location_longitude` DECIMAL(9, 6) NULL DEFAULT NULL,
  `location_region` CHAR(3) NULL DEFAULT NULL,
  `visit_total_time` INT(11) UNSIGNED NOT NULL,
  PRIMARY KEY (`idvisit`),
  INDEX `index_idsite_config_datetime` (`idsite`, `config_id`, `visit_last_action_time`),
  INDEX `index_idsite_datetime` (`idsite`, `visit_last_action_time`),
  INDEX `index_idsite_idvisitor` (`idsite`, `idvisitor`, `visit_last_action_time` DESC)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE `matomo_log_link_visit_action` (
  `idlink_va` BIGINT(10) UNSIGNED NOT NULL AUTO_INCREMENT,
  `idsite` INT(10) UNSIGNED NOT NULL,
  `idvisitor` BINARY(8) NOT NULL,
  `idvisit` BIGINT(10) UNSIGNED NOT NULL,
  `idaction_url_ref` INTEGER(10) UNSIGNED NULL DEFAULT 0,
  `idaction_name_ref` INTEGER(10) UNSIGNED NULL,
  `custom_float` DOUBLE NULL DEFAULT NULL,
  `server_time` DATETIME NOT NULL,
  `idpageview` CHAR(6) NULL DEFAULT NULL,
  `idaction_name` INTEGER(10) UNSIGNED NULL,
  `idaction_url` INTEGER(10) UNSIGNED NULL DEFAULT NULL,
  `search_cat` VARCHAR(200) NULL,
  `search_count` INTEGER(10) UNSIGNED NULL,
  `time_spent_ref_action` INTEGER(10) UNSIGNED NULL,
  `idaction_product_cat` INT(10) UNSIGNED NULL,
  `idaction_product_cat2` INT(10) UNSIGNED NULL,
  `idaction_product_sku` INT(10) UNSIGNED NULL,
  `idaction_product_name` INT(10) UNSIGNED NULL,
  `product_price` DOUBLE NULL,
  `idaction_content_interaction` INTEGER(10) UNSIGNED DEFAULT NULL,
  `idaction_content_name` INTEGER(10) UNSIGNED DEFAULT NULL,
  `idaction_content_piece` INTEGER(10) UNSIGNED DEFAULT NULL,
  `idaction_content_target` INTEGER(10) UNSIGNED DEFAULT NULL,
  `idaction_event_action` INTEGER(10) UNSIGNED DEFAULT NULL,
  `idaction_event_category` INTEGER(10) UNSIGNED DEFAULT NULL,
  `time_dom_processing` MEDIUMINT(10) UNSIGNED NULL,
  `time_network` MEDIUMINT(10) UNSIGNED NULL,
  `time_server` MEDIUMINT(10) UNSIGNED NULL,
  `time_transfer` MEDIUMINT(10) UNSIGNED NULL,
  PRIMARY KEY (`idlink_va`),
  INDEX `index_idvisit` (`idvisit`),
  INDEX `index_idsite_servertime` (`idsite`, `server_time`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE `matomo_log_conversion` (
  `idvisit` BIGINT(10) UNSIGNED NOT NULL,
  `idsite` INT(10) UNSIGNED NOT NULL,
  `idvisitor` BINARY(8) NOT NULL,
  `server_time` DATETIME NOT NULL,
  `idaction_url` INTEGER(10) UNSIGNED DEFAULT NULL,
  `idlink_va` BIGINT(10) UNSIGNED DEFAULT NULL,
  `idgoal` INT(10) NOT NULL,
  `buster` INT(10) UNSIGNED NOT NULL,
  `idorder` VARCHAR(100) NULL DEFAULT NULL,
  `items` SMALLINT UNSIGNED DEFAULT NULL,
  `url` VARCHAR(4096) NOT NULL,
  `revenue` DOUBLE NULL DEFAULT NULL,
  `revenue_shipping` DOUBLE NULL DEFAULT NULL,
  `revenue_subtotal` DOUBLE NULL DEFAULT NULL,
  `revenue_tax` DOUBLE NULL DEFAULT NULL,
  `revenue_discount` DOUBLE NULL DEFAULT NULL,
  PRIMARY KEY (`idvisit`, `idgoal`, `buster`),
  UNIQUE KEY `unique_idsite_idorder` (`idsite`, `idorder`),
  INDEX `index_idsite_datetime` (`idsite`, `server_time`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE `matomo_option` (
  `option_name` VARCHAR(191) NOT NULL,
  `option_value` LONGTEXT NOT NULL,
  `autoload` TINYINT NOT NULL DEFAULT '1',
  PRIMARY KEY (`option_name`),
  INDEX `autoload` (`autoload`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE `matomo_session` (
  `id` VARCHAR(191) NOT NULL,
  `modified` INTEGER,
  `lifetime` INTEGER,
  `data` MEDIUMTEXT,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE `matomo_archive_numeric_2024_01` (
  `idarchive` INTEGER UNSIGNED NOT NULL,
  `name` VARCHAR(190) NOT NULL,
  `idsite` INTEGER UNSIGNED NULL,
  `date1` DATE NULL,
  `date2` DATE NULL,
  `period` TINYINT UNSIGNED NULL,
  `ts_archived` DATETIME NULL,
  `value` DOUBLE NULL,
  PRIMARY KEY (`idarchive`, `name`),
  INDEX `index_idsite_dates_period` (`idsite`, `date1`, `date2`, `period`, `name`(6)),
  INDEX `index_period_archived` (`period`, `ts_archived`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE `matomo_archive_blob_2024_01` (
  `idarchive` INTEGER UNSIGNED NOT NULL,
  `name` VARCHAR(190) NOT NULL,
  `idsite` INTEGER UNSIGNED NULL,
  `date1` DATE NULL,
  `date2` DATE NULL,
  `period` TINYINT UNSIGNED NULL,
  `ts_archived` DATETIME NULL,
  `value` MEDIUMBLOB NULL,
  PRIMARY KEY (`idarchive`, `name`),
  INDEX `index_period_archived` (`period`, `ts_archived`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
