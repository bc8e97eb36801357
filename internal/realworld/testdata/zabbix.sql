-- Modelled on Zabbix's database/mysql/schema.sql (5.0–6.0), in a database
-- created the way Zabbix's install guide says: utf8mb4 with utf8mb4_bin,
-- here on each table. Ids are BIGINT UNSIGNED handed out by the server from
-- `ids` (no AUTO_INCREMENT), enumerations are plain integers, timestamps are
-- integer `clock` seconds with `ns` nanoseconds. history and history_uint
-- have 6.0's primary key (itemid, clock, ns); history_text and history_log
-- still have the pre-6.0 layout without any primary key (the 6.0 upgrade of
-- history tables is a manual, optional step, so many installations keep it);
-- trends still has 4.x's DOUBLE(16,4). LONGTEXT values are big (log files,
-- scripts' output). items.key_ is 4.0's varchar(255) (5.0 widens it mid-stream). Trimmed to its characteristic tables.

CREATE TABLE `hosts` (
  `hostid` bigint unsigned NOT NULL,
  `proxy_hostid` bigint unsigned NULL,
  `host` varchar(128) DEFAULT '' NOT NULL,
  `status` integer DEFAULT '0' NOT NULL,
  `ipmi_authtype` integer DEFAULT '-1' NOT NULL,
  `ipmi_privilege` integer DEFAULT '2' NOT NULL,
  `ipmi_username` varchar(16) DEFAULT '' NOT NULL,
  `ipmi_password` varchar(20) DEFAULT '' NOT NULL,
  `maintenanceid` bigint unsigned NULL,
  `maintenance_status` integer DEFAULT '0' NOT NULL,
  `maintenance_type` integer DEFAULT '0' NOT NULL,
  `maintenance_from` integer DEFAULT '0' NOT NULL,
  `name` varchar(128) DEFAULT '' NOT NULL,
  `flags` integer DEFAULT '0' NOT NULL,
  `templateid` bigint unsigned NULL,
  `description` text NOT NULL,
  `tls_connect` integer DEFAULT '1' NOT NULL,
  `tls_accept` integer DEFAULT '1' NOT NULL,
  `tls_psk_identity` varchar(128) DEFAULT '' NOT NULL,
  `tls_psk` varchar(512) DEFAULT '' NOT NULL,
  `uuid` varchar(32) DEFAULT '' NOT NULL,
  PRIMARY KEY (hostid)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
CREATE INDEX `hosts_1` ON `hosts` (`host`);
CREATE INDEX `hosts_2` ON `hosts` (`status`);
CREATE INDEX `hosts_3` ON `hosts` (`proxy_hostid`);

CREATE TABLE `items` (
  `itemid` bigint unsigned NOT NULL,
  `type` integer DEFAULT '0' NOT NULL,
  `snmp_oid` varchar(512) DEFAULT '' NOT NULL,
  `hostid` bigint unsigned NOT NULL,
  `name` varchar(255) DEFAULT '' NOT NULL,
  `key_` varchar(255) DEFAULT '' NOT NULL,
  `delay` varchar(1024) DEFAULT '0' NOT NULL,
  `history` varchar(255) DEFAULT '90d' NOT NULL,
  `trends` varchar(255) DEFAULT '365d' NOT NULL,
  `status` integer DEFAULT '0' NOT NULL,
  `value_type` integer DEFAULT '0' NOT NULL,
  `units` varchar(255) DEFAULT '' NOT NULL,
  `formula` varchar(255) DEFAULT '' NOT NULL,
  `logtimefmt` varchar(64) DEFAULT '' NOT NULL,
  `templateid` bigint unsigned NULL,
  `params` text NOT NULL,
  `description` text NOT NULL,
  `flags` integer DEFAULT '0' NOT NULL,
  `lifetime` varchar(255) DEFAULT '30d' NOT NULL,
  `uuid` varchar(32) DEFAULT '' NOT NULL,
  PRIMARY KEY (itemid)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
CREATE UNIQUE INDEX `items_1` ON `items` (`hostid`,`key_`);
CREATE INDEX `items_3` ON `items` (`status`);
CREATE INDEX `items_4` ON `items` (`templateid`);

CREATE TABLE `history` (
  `itemid` bigint unsigned NOT NULL,
  `clock` integer DEFAULT '0' NOT NULL,
  `value` DOUBLE PRECISION DEFAULT '0.0000' NOT NULL,
  `ns` integer DEFAULT '0' NOT NULL,
  PRIMARY KEY (itemid,clock,ns)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `history_uint` (
  `itemid` bigint unsigned NOT NULL,
  `clock` integer DEFAULT '0' NOT NULL,
  `value` bigint unsigned DEFAULT '0' NOT NULL,
  `ns` integer DEFAULT '0' NOT NULL,
  PRIMARY KEY (itemid,clock,ns)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `history_str` (
  `itemid` bigint unsigned NOT NULL,
  `clock` integer DEFAULT '0' NOT NULL,
  `value` varchar(255) DEFAULT '' NOT NULL,
  `ns` integer DEFAULT '0' NOT NULL,
  PRIMARY KEY (itemid,clock,ns)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `history_text` (
  `itemid` bigint unsigned NOT NULL,
  `clock` integer DEFAULT '0' NOT NULL,
  `value` longtext NOT NULL,
  `ns` integer DEFAULT '0' NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
CREATE INDEX `history_text_1` ON `history_text` (`itemid`,`clock`);

CREATE TABLE `history_log` (
  `itemid` bigint unsigned NOT NULL,
  `clock` integer DEFAULT '0' NOT NULL,
  `timestamp` integer DEFAULT '0' NOT NULL,
  `source` varchar(64) DEFAULT '' NOT NULL,
  `severity` integer DEFAULT '0' NOT NULL,
  `value` longtext NOT NULL,
  `logeventid` integer DEFAULT '0' NOT NULL,
  `ns` integer DEFAULT '0' NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
CREATE INDEX `history_log_1` ON `history_log` (`itemid`,`clock`);

CREATE TABLE `trends` (
  `itemid` bigint unsigned NOT NULL,
  `clock` integer DEFAULT '0' NOT NULL,
  `num` integer DEFAULT '0' NOT NULL,
  `value_min` DOUBLE(16,4) DEFAULT '0.0000' NOT NULL,
  `value_avg` DOUBLE(16,4) DEFAULT '0.0000' NOT NULL,
  `value_max` DOUBLE(16,4) DEFAULT '0.0000' NOT NULL,
  PRIMARY KEY (itemid,clock)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `trends_uint` (
  `itemid` bigint unsigned NOT NULL,
  `clock` integer DEFAULT '0' NOT NULL,
  `num` integer DEFAULT '0' NOT NULL,
  `value_min` bigint unsigned DEFAULT '0' NOT NULL,
  `value_avg` bigint unsigned DEFAULT '0' NOT NULL,
  `value_max` bigint unsigned DEFAULT '0' NOT NULL,
  PRIMARY KEY (itemid,clock)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `events` (
  `eventid` bigint unsigned NOT NULL,
  `source` integer DEFAULT '0' NOT NULL,
  `object` integer DEFAULT '0' NOT NULL,
  `objectid` bigint unsigned DEFAULT '0' NOT NULL,
  `clock` integer DEFAULT '0' NOT NULL,
  `value` integer DEFAULT '0' NOT NULL,
  `acknowledged` integer DEFAULT '0' NOT NULL,
  `ns` integer DEFAULT '0' NOT NULL,
  `name` varchar(2048) DEFAULT '' NOT NULL,
  `severity` integer DEFAULT '0' NOT NULL,
  PRIMARY KEY (eventid)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
CREATE INDEX `events_1` ON `events` (`source`,`object`,`objectid`,`clock`);
CREATE INDEX `events_2` ON `events` (`source`,`object`,`clock`);

CREATE TABLE `problem` (
  `eventid` bigint unsigned NOT NULL,
  `source` integer DEFAULT '0' NOT NULL,
  `object` integer DEFAULT '0' NOT NULL,
  `objectid` bigint unsigned DEFAULT '0' NOT NULL,
  `clock` integer DEFAULT '0' NOT NULL,
  `ns` integer DEFAULT '0' NOT NULL,
  `r_eventid` bigint unsigned NULL,
  `r_clock` integer DEFAULT '0' NOT NULL,
  `r_ns` integer DEFAULT '0' NOT NULL,
  `correlationid` bigint unsigned NULL,
  `userid` bigint unsigned NULL,
  `name` varchar(2048) DEFAULT '' NOT NULL,
  `acknowledged` integer DEFAULT '0' NOT NULL,
  `severity` integer DEFAULT '0' NOT NULL,
  PRIMARY KEY (eventid)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
CREATE INDEX `problem_1` ON `problem` (`source`,`object`,`objectid`);
CREATE INDEX `problem_2` ON `problem` (`r_clock`);
CREATE INDEX `problem_3` ON `problem` (`r_eventid`);

CREATE TABLE `alerts` (
  `alertid` bigint unsigned NOT NULL,
  `actionid` bigint unsigned NOT NULL,
  `eventid` bigint unsigned NOT NULL,
  `userid` bigint unsigned NULL,
  `clock` integer DEFAULT '0' NOT NULL,
  `mediatypeid` bigint unsigned NULL,
  `sendto` varchar(1024) DEFAULT '' NOT NULL,
  `subject` varchar(255) DEFAULT '' NOT NULL,
  `message` text NOT NULL,
  `status` integer DEFAULT '0' NOT NULL,
  `retries` integer DEFAULT '0' NOT NULL,
  `error` varchar(2048) DEFAULT '' NOT NULL,
  `esc_step` integer DEFAULT '0' NOT NULL,
  `alerttype` integer DEFAULT '0' NOT NULL,
  `p_eventid` bigint unsigned NULL,
  `acknowledgeid` bigint unsigned NULL,
  `parameters` text NOT NULL,
  PRIMARY KEY (alertid)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
CREATE INDEX `alerts_1` ON `alerts` (`actionid`);
CREATE INDEX `alerts_2` ON `alerts` (`clock`);
CREATE INDEX `alerts_3` ON `alerts` (`eventid`);

CREATE TABLE `ids` (
  `table_name` varchar(64) DEFAULT '' NOT NULL,
  `field_name` varchar(64) DEFAULT '' NOT NULL,
  `nextid` bigint unsigned NOT NULL,
  PRIMARY KEY (table_name,field_name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `sessions` (
  `sessionid` varchar(32) DEFAULT '' NOT NULL,
  `userid` bigint unsigned NOT NULL,
  `lastaccess` integer DEFAULT '0' NOT NULL,
  `status` integer DEFAULT '0' NOT NULL,
  `secret` varchar(32) DEFAULT '' NOT NULL,
  PRIMARY KEY (sessionid)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
CREATE INDEX `sessions_1` ON `sessions` (`userid`,`status`,`lastaccess`);

ALTER TABLE `hosts` ADD CONSTRAINT `c_hosts_1` FOREIGN KEY (`proxy_hostid`) REFERENCES `hosts` (`hostid`);
ALTER TABLE `hosts` ADD CONSTRAINT `c_hosts_3` FOREIGN KEY (`templateid`) REFERENCES `hosts` (`hostid`) ON DELETE CASCADE;
ALTER TABLE `items` ADD CONSTRAINT `c_items_1` FOREIGN KEY (`hostid`) REFERENCES `hosts` (`hostid`) ON DELETE CASCADE;
ALTER TABLE `items` ADD CONSTRAINT `c_items_2` FOREIGN KEY (`templateid`) REFERENCES `items` (`itemid`) ON DELETE CASCADE;
ALTER TABLE `problem` ADD CONSTRAINT `c_problem_1` FOREIGN KEY (`eventid`) REFERENCES `events` (`eventid`) ON DELETE CASCADE;
ALTER TABLE `problem` ADD CONSTRAINT `c_problem_2` FOREIGN KEY (`r_eventid`) REFERENCES `events` (`eventid`) ON DELETE CASCADE;
ALTER TABLE `alerts` ADD CONSTRAINT `c_alerts_2` FOREIGN KEY (`eventid`) REFERENCES `events` (`eventid`) ON DELETE CASCADE;
ALTER TABLE `alerts` ADD CONSTRAINT `c_alerts_5` FOREIGN KEY (`p_eventid`) REFERENCES `events` (`eventid`) ON DELETE CASCADE;
