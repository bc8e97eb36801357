-- Modelled on Nextcloud 23-28's tables as its Doctrine migrations create them
-- on MySQL with 'mysql.utf8mb4' => true: the oc_ prefix, utf8mb4_bin,
-- ROW_FORMAT=COMPRESSED, BIGINT and BIGINT UNSIGNED ids, filecache with its
-- (storage, path_hash) unique VARCHAR(32) and prefix indexes, LONGTEXT
-- config values, `lock`, `key`, `user` and `timestamp` as column names.
-- Where an older installation still has what the mid-stream upgrades change:
-- oc_preferences in utf8mb3 (occ db:convert-mysql-charset), oc_activity with
-- INT ids (occ db:convert-filecache-bigint), oc_jobs without time_sensitive
-- (Nextcloud 24) and oc_filecache without fs_storage_path_prefix (occ
-- db:add-missing-indices). Trimmed to its characteristic tables.
--
-- `Window` is not Nextcloud's: it adds what the brief asks of every
-- application schema where the application has none — a table name and
-- column names that are PostgreSQL reserved words and mixed case, DEFAULT
-- (expr) and current_timestamp(6) defaults, ON UPDATE CURRENT_TIMESTAMP, an
-- ENUM with '' and a value with a quote (and one with a comma), and a STORED
-- and a VIRTUAL generated column.

CREATE TABLE `oc_filecache` (
  `fileid` BIGINT AUTO_INCREMENT NOT NULL,
  `storage` BIGINT DEFAULT 0 NOT NULL,
  `path` VARCHAR(4000) DEFAULT NULL,
  `path_hash` VARCHAR(32) DEFAULT '' NOT NULL,
  `parent` BIGINT DEFAULT 0 NOT NULL,
  `name` VARCHAR(250) DEFAULT NULL,
  `mimetype` BIGINT DEFAULT 0 NOT NULL,
  `mimepart` BIGINT DEFAULT 0 NOT NULL,
  `size` BIGINT DEFAULT 0 NOT NULL,
  `mtime` BIGINT DEFAULT 0 NOT NULL,
  `storage_mtime` BIGINT DEFAULT 0 NOT NULL,
  `encrypted` INT DEFAULT 0 NOT NULL,
  `unencrypted_size` BIGINT DEFAULT 0 NOT NULL,
  `etag` VARCHAR(40) DEFAULT NULL,
  `permissions` INT DEFAULT 0,
  `checksum` VARCHAR(255) DEFAULT NULL,
  UNIQUE INDEX `fs_storage_path_hash` (`storage`, `path_hash`),
  INDEX `fs_parent_name_hash` (`parent`, `name`(64)),
  INDEX `fs_storage_mimetype` (`storage`, `mimetype`),
  INDEX `fs_storage_mimepart` (`storage`, `mimepart`),
  INDEX `fs_storage_size` (`storage`, `size`, `fileid`),
  INDEX `fs_mtime` (`mtime`),
  INDEX `fs_size` (`size`),
  INDEX `fs_id_storage_size` (`fileid`, `storage`, `size`),
  INDEX `fs_parent` (`parent`),
  PRIMARY KEY(`fileid`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE `utf8mb4_bin` ENGINE = InnoDB ROW_FORMAT = compressed;

CREATE TABLE `oc_filecache_extended` (
  `fileid` BIGINT UNSIGNED NOT NULL,
  `metadata_etag` VARCHAR(40) DEFAULT NULL,
  `creation_time` BIGINT DEFAULT 0 NOT NULL,
  `upload_time` BIGINT DEFAULT 0 NOT NULL,
  INDEX `fce_ctime_idx` (`creation_time`),
  INDEX `fce_utime_idx` (`upload_time`),
  PRIMARY KEY(`fileid`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE `utf8mb4_bin` ENGINE = InnoDB ROW_FORMAT = compressed;

CREATE TABLE `oc_mimetypes` (
  `id` BIGINT AUTO_INCREMENT NOT NULL,
  `mimetype` VARCHAR(255) DEFAULT '' NOT NULL,
  UNIQUE INDEX `mimetype_id_index` (`mimetype`),
  PRIMARY KEY(`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE `utf8mb4_bin` ENGINE = InnoDB ROW_FORMAT = compressed;

CREATE TABLE `oc_storages` (
  `numeric_id` BIGINT AUTO_INCREMENT NOT NULL,
  `id` VARCHAR(64) DEFAULT NULL,
  `available` INT DEFAULT 1 NOT NULL,
  `last_checked` INT DEFAULT NULL,
  UNIQUE INDEX `storages_id_index` (`id`),
  PRIMARY KEY(`numeric_id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE `utf8mb4_bin` ENGINE = InnoDB ROW_FORMAT = compressed;

CREATE TABLE `oc_users` (
  `uid` VARCHAR(64) DEFAULT '' NOT NULL,
  `displayname` VARCHAR(64) DEFAULT NULL,
  `password` VARCHAR(255) DEFAULT '' NOT NULL,
  `uid_lower` VARCHAR(64) DEFAULT '',
  INDEX `user_uid_lower` (`uid_lower`),
  PRIMARY KEY(`uid`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE `utf8mb4_bin` ENGINE = InnoDB ROW_FORMAT = compressed;

CREATE TABLE `oc_preferences` (
  `userid` VARCHAR(64) DEFAULT '' NOT NULL,
  `appid` VARCHAR(32) DEFAULT '' NOT NULL,
  `configkey` VARCHAR(64) DEFAULT '' NOT NULL,
  `configvalue` LONGTEXT DEFAULT NULL,
  PRIMARY KEY(`userid`, `appid`, `configkey`)
) DEFAULT CHARACTER SET utf8mb3 COLLATE `utf8mb3_bin` ENGINE = InnoDB ROW_FORMAT = dynamic;

CREATE TABLE `oc_appconfig` (
  `appid` VARCHAR(32) DEFAULT '' NOT NULL,
  `configkey` VARCHAR(64) DEFAULT '' NOT NULL,
  `configvalue` LONGTEXT DEFAULT NULL,
  `type` INT UNSIGNED DEFAULT 2 NOT NULL,
  `lazy` SMALLINT UNSIGNED DEFAULT 0 NOT NULL,
  INDEX `ac_lazy_i` (`lazy`),
  PRIMARY KEY(`appid`, `configkey`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE `utf8mb4_bin` ENGINE = InnoDB ROW_FORMAT = compressed;

CREATE TABLE `oc_file_locks` (
  `id` BIGINT UNSIGNED AUTO_INCREMENT NOT NULL,
  `lock` INT DEFAULT 0 NOT NULL,
  `key` VARCHAR(64) NOT NULL,
  `ttl` INT DEFAULT -1 NOT NULL,
  UNIQUE INDEX `lock_key_index` (`key`),
  INDEX `lock_ttl_index` (`ttl`),
  PRIMARY KEY(`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE `utf8mb4_bin` ENGINE = InnoDB ROW_FORMAT = compressed;

CREATE TABLE `oc_authtoken` (
  `id` BIGINT UNSIGNED AUTO_INCREMENT NOT NULL,
  `uid` VARCHAR(64) DEFAULT '' NOT NULL,
  `login_name` VARCHAR(255) DEFAULT '' NOT NULL,
  `password` LONGTEXT DEFAULT NULL,
  `name` LONGTEXT NOT NULL,
  `token` VARCHAR(200) DEFAULT '' NOT NULL,
  `type` SMALLINT UNSIGNED DEFAULT 0,
  `remember` SMALLINT UNSIGNED DEFAULT 0,
  `last_activity` INT UNSIGNED DEFAULT 0,
  `last_check` INT UNSIGNED DEFAULT 0,
  `scope` LONGTEXT DEFAULT NULL,
  `expires` INT UNSIGNED DEFAULT NULL,
  `private_key` LONGTEXT DEFAULT NULL,
  `public_key` LONGTEXT DEFAULT NULL,
  `version` SMALLINT UNSIGNED DEFAULT 1 NOT NULL,
  `password_invalid` TINYINT(1) DEFAULT 0,
  UNIQUE INDEX `authtoken_token_index` (`token`),
  INDEX `authtoken_last_activity_idx` (`last_activity`),
  INDEX `authtoken_uid_index` (`uid`),
  PRIMARY KEY(`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE `utf8mb4_bin` ENGINE = InnoDB ROW_FORMAT = compressed;

CREATE TABLE `oc_jobs` (
  `id` BIGINT UNSIGNED AUTO_INCREMENT NOT NULL,
  `class` VARCHAR(255) DEFAULT '' NOT NULL,
  `argument` VARCHAR(4000) DEFAULT '' NOT NULL,
  `last_run` INT DEFAULT 0,
  `last_checked` INT DEFAULT 0,
  `reserved_at` INT DEFAULT 0,
  `execution_duration` INT DEFAULT 0,
  `argument_hash` VARCHAR(64) DEFAULT NULL,
  INDEX `job_class_index` (`class`),
  INDEX `job_lastcheck_reserved` (`last_checked`, `reserved_at`),
  INDEX `job_argument_hash` (`class`, `argument_hash`),
  PRIMARY KEY(`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE `utf8mb4_bin` ENGINE = InnoDB ROW_FORMAT = compressed;

CREATE TABLE `oc_activity` (
  `activity_id` INT AUTO_INCREMENT NOT NULL,
  `timestamp` INT DEFAULT 0 NOT NULL,
  `priority` INT DEFAULT 0 NOT NULL,
  `type` VARCHAR(255) DEFAULT NULL,
  `user` VARCHAR(64) DEFAULT NULL,
  `affecteduser` VARCHAR(64) NOT NULL,
  `app` VARCHAR(32) NOT NULL,
  `subject` VARCHAR(255) NOT NULL,
  `subjectparams` LONGTEXT NOT NULL,
  `message` VARCHAR(255) DEFAULT NULL,
  `messageparams` LONGTEXT DEFAULT NULL,
  `file` VARCHAR(4000) DEFAULT NULL,
  `link` VARCHAR(4000) DEFAULT NULL,
  `object_type` VARCHAR(255) DEFAULT NULL,
  `object_id` INT DEFAULT 0 NOT NULL,
  INDEX `activity_user_time` (`affecteduser`, `timestamp`),
  INDEX `activity_filter_by` (`affecteduser`, `user`, `timestamp`),
  INDEX `activity_filter` (`affecteduser`, `type`, `app`, `timestamp`),
  INDEX `activity_object` (`object_type`, `object_id`),
  PRIMARY KEY(`activity_id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE `utf8mb4_bin` ENGINE = InnoDB ROW_FORMAT = compressed;

CREATE TABLE `oc_calendarobjects` (
  `id` BIGINT UNSIGNED AUTO_INCREMENT NOT NULL,
  `calendardata` LONGBLOB DEFAULT NULL,
  `uri` VARCHAR(255) DEFAULT NULL,
  `calendarid` BIGINT UNSIGNED NOT NULL,
  `lastmodified` INT UNSIGNED DEFAULT NULL,
  `etag` VARCHAR(32) DEFAULT NULL,
  `size` BIGINT UNSIGNED NOT NULL,
  `componenttype` VARCHAR(8) DEFAULT NULL,
  `firstoccurence` BIGINT UNSIGNED DEFAULT NULL,
  `lastoccurence` BIGINT UNSIGNED DEFAULT NULL,
  `uid` VARCHAR(255) DEFAULT NULL,
  `classification` INT DEFAULT 0,
  `calendartype` INT DEFAULT 0 NOT NULL,
  `deleted_at` INT UNSIGNED DEFAULT NULL,
  UNIQUE INDEX `calobjects_index` (`calendarid`, `calendartype`, `uri`),
  INDEX `calobj_clssfction_index` (`classification`),
  PRIMARY KEY(`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE `utf8mb4_bin` ENGINE = InnoDB ROW_FORMAT = compressed;

CREATE TABLE `Window` (
  `ID` BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  `Select` VARCHAR(64) NOT NULL DEFAULT 'all',
  `from` DATE NOT NULL DEFAULT (CURRENT_DATE),
  `end` DATETIME(6) NOT NULL DEFAULT current_timestamp(6),
  `Limit` INT NOT NULL DEFAULT (10 * 10),
  `token` CHAR(36) NOT NULL DEFAULT (uuid()),
  `expires` DATETIME NOT NULL DEFAULT (current_timestamp + INTERVAL 1 DAY),
  `updatedAt` TIMESTAMP(6) NOT NULL DEFAULT current_timestamp(6) ON UPDATE current_timestamp(6),
  `touched` DATETIME NULL DEFAULT NULL ON UPDATE CURRENT_TIMESTAMP,
  `state` ENUM('', 'new', 'it''s done', 'a,b') NOT NULL DEFAULT '',
  `Price` DECIMAL(10,2) NOT NULL DEFAULT 0,
  `qty` INT NOT NULL DEFAULT 1,
  `Total` DECIMAL(12,2) AS (`Price` * `qty`) STORED,
  `Label` VARCHAR(140) AS (CONCAT(`Select`, '/', `state`)) VIRTUAL,
  PRIMARY KEY (`ID`),
  UNIQUE KEY `Token` (`token`),
  KEY `Total` (`Total`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
