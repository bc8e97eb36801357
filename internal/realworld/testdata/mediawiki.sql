-- Modelled on MediaWiki 1.37–1.41's maintenance/tables-generated.sql for MySQL,
-- with the installer's default $wgDBTableOptions ("ENGINE=InnoDB, DEFAULT
-- CHARSET=binary"): every string is bytes (VARCHAR becomes VARBINARY,
-- TINYTEXT becomes TINYBLOB), timestamps are BINARY(14) '20240101120000'
-- strings, flags TINYINT UNSIGNED, keys INT UNSIGNED AUTO_INCREMENT, titles
-- VARBINARY(255) in composite unique keys, page text a MEDIUMBLOB. `user`
-- is a reserved word in PostgreSQL; `text` a type name. Trimmed to its
-- characteristic tables, at 1.37 where the mid-stream upgrades begin
-- (objectcache without modtoken and flags, no linktarget).

CREATE TABLE page (
  page_id INT UNSIGNED AUTO_INCREMENT NOT NULL,
  page_namespace INT NOT NULL,
  page_title VARBINARY(255) NOT NULL,
  page_is_redirect TINYINT UNSIGNED DEFAULT 0 NOT NULL,
  page_is_new TINYINT UNSIGNED DEFAULT 0 NOT NULL,
  page_random DOUBLE PRECISION UNSIGNED NOT NULL,
  page_touched BINARY(14) NOT NULL,
  page_links_updated VARBINARY(14) DEFAULT NULL,
  page_latest INT UNSIGNED NOT NULL,
  page_len INT UNSIGNED NOT NULL,
  page_content_model VARBINARY(32) DEFAULT NULL,
  page_lang VARBINARY(35) DEFAULT NULL,
  UNIQUE INDEX page_name_title (page_namespace, page_title),
  INDEX page_random (page_random),
  INDEX page_len (page_len),
  INDEX page_redirect_namespace_len (page_is_redirect, page_namespace, page_len),
  PRIMARY KEY(page_id)
) ENGINE=InnoDB, DEFAULT CHARSET=binary;

CREATE TABLE revision (
  rev_id INT UNSIGNED AUTO_INCREMENT NOT NULL,
  rev_page INT UNSIGNED NOT NULL,
  rev_comment_id BIGINT UNSIGNED DEFAULT 0 NOT NULL,
  rev_actor BIGINT UNSIGNED DEFAULT 0 NOT NULL,
  rev_timestamp BINARY(14) NOT NULL,
  rev_minor_edit TINYINT UNSIGNED DEFAULT 0 NOT NULL,
  rev_deleted TINYINT UNSIGNED DEFAULT 0 NOT NULL,
  rev_len INT UNSIGNED DEFAULT NULL,
  rev_parent_id INT UNSIGNED DEFAULT NULL,
  rev_sha1 VARBINARY(32) DEFAULT '' NOT NULL,
  INDEX rev_timestamp (rev_timestamp),
  INDEX rev_page_timestamp (rev_page, rev_timestamp),
  INDEX rev_actor_timestamp (rev_actor, rev_timestamp, rev_id),
  INDEX rev_page_actor_timestamp (rev_page, rev_actor, rev_timestamp),
  PRIMARY KEY(rev_id)
) ENGINE=InnoDB, DEFAULT CHARSET=binary;

CREATE TABLE text (
  old_id INT UNSIGNED AUTO_INCREMENT NOT NULL,
  old_text MEDIUMBLOB NOT NULL,
  old_flags TINYBLOB NOT NULL,
  PRIMARY KEY(old_id)
) ENGINE=InnoDB, DEFAULT CHARSET=binary;

CREATE TABLE comment (
  comment_id BIGINT UNSIGNED AUTO_INCREMENT NOT NULL,
  comment_hash INT NOT NULL,
  comment_text BLOB NOT NULL,
  comment_data BLOB DEFAULT NULL,
  INDEX comment_hash (comment_hash),
  PRIMARY KEY(comment_id)
) ENGINE=InnoDB, DEFAULT CHARSET=binary;

CREATE TABLE actor (
  actor_id BIGINT UNSIGNED AUTO_INCREMENT NOT NULL,
  actor_user INT UNSIGNED DEFAULT NULL,
  actor_name VARBINARY(255) NOT NULL,
  UNIQUE INDEX actor_user (actor_user),
  UNIQUE INDEX actor_name (actor_name),
  PRIMARY KEY(actor_id)
) ENGINE=InnoDB, DEFAULT CHARSET=binary;

CREATE TABLE user (
  user_id INT UNSIGNED AUTO_INCREMENT NOT NULL,
  user_name VARCHAR(255) DEFAULT '' NOT NULL,
  user_real_name VARCHAR(255) DEFAULT '' NOT NULL,
  user_password TINYBLOB NOT NULL,
  user_newpassword TINYBLOB NOT NULL,
  user_newpass_time BINARY(14) DEFAULT NULL,
  user_email TINYTEXT NOT NULL,
  user_touched BINARY(14) NOT NULL,
  user_token BINARY(32) DEFAULT '' NOT NULL,
  user_email_authenticated BINARY(14) DEFAULT NULL,
  user_email_token BINARY(32) DEFAULT NULL,
  user_email_token_expires BINARY(14) DEFAULT NULL,
  user_registration BINARY(14) DEFAULT NULL,
  user_editcount INT UNSIGNED DEFAULT NULL,
  user_password_expires VARBINARY(14) DEFAULT NULL,
  UNIQUE INDEX user_name (user_name),
  INDEX user_email_token (user_email_token),
  INDEX user_email (user_email(50)),
  PRIMARY KEY(user_id)
) ENGINE=InnoDB, DEFAULT CHARSET=binary;

CREATE TABLE categorylinks (
  cl_from INT UNSIGNED DEFAULT 0 NOT NULL,
  cl_to VARBINARY(255) DEFAULT '' NOT NULL,
  cl_sortkey VARBINARY(230) DEFAULT '' NOT NULL,
  cl_sortkey_prefix VARBINARY(255) DEFAULT '' NOT NULL,
  cl_timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL,
  cl_collation VARBINARY(32) DEFAULT '' NOT NULL,
  cl_type ENUM('page', 'subcat', 'file') DEFAULT 'page' NOT NULL,
  INDEX cl_sortkey (cl_to, cl_type, cl_sortkey, cl_from),
  INDEX cl_timestamp (cl_to, cl_timestamp),
  PRIMARY KEY(cl_from, cl_to)
) ENGINE=InnoDB, DEFAULT CHARSET=binary;

CREATE TABLE pagelinks (
  pl_from INT UNSIGNED DEFAULT 0 NOT NULL,
  pl_namespace INT DEFAULT 0 NOT NULL,
  pl_title VARBINARY(255) DEFAULT '' NOT NULL,
  pl_from_namespace INT DEFAULT 0 NOT NULL,
  INDEX pl_namespace (pl_namespace, pl_title, pl_from),
  INDEX pl_backlinks_namespace (pl_from_namespace, pl_namespace, pl_title, pl_from),
  PRIMARY KEY(pl_from, pl_namespace, pl_title)
) ENGINE=InnoDB, DEFAULT CHARSET=binary;

CREATE TABLE page_props (
  pp_page INT UNSIGNED NOT NULL,
  pp_propname VARBINARY(60) NOT NULL,
  pp_value BLOB NOT NULL,
  pp_sortkey FLOAT DEFAULT NULL,
  UNIQUE INDEX pp_propname_page (pp_propname, pp_page),
  UNIQUE INDEX pp_propname_sortkey_page (pp_propname, pp_sortkey, pp_page),
  PRIMARY KEY(pp_page, pp_propname)
) ENGINE=InnoDB, DEFAULT CHARSET=binary;

CREATE TABLE recentchanges (
  rc_id INT UNSIGNED AUTO_INCREMENT NOT NULL,
  rc_timestamp BINARY(14) NOT NULL,
  rc_actor BIGINT UNSIGNED NOT NULL,
  rc_namespace INT DEFAULT 0 NOT NULL,
  rc_title VARBINARY(255) DEFAULT '' NOT NULL,
  rc_comment_id BIGINT UNSIGNED NOT NULL,
  rc_minor TINYINT UNSIGNED DEFAULT 0 NOT NULL,
  rc_bot TINYINT UNSIGNED DEFAULT 0 NOT NULL,
  rc_new TINYINT UNSIGNED DEFAULT 0 NOT NULL,
  rc_cur_id INT UNSIGNED DEFAULT 0 NOT NULL,
  rc_this_oldid INT UNSIGNED DEFAULT 0 NOT NULL,
  rc_last_oldid INT UNSIGNED DEFAULT 0 NOT NULL,
  rc_type TINYINT UNSIGNED DEFAULT 0 NOT NULL,
  rc_source VARBINARY(16) DEFAULT '' NOT NULL,
  rc_patrolled TINYINT UNSIGNED DEFAULT 0 NOT NULL,
  rc_ip VARBINARY(40) DEFAULT '' NOT NULL,
  rc_old_len INT DEFAULT NULL,
  rc_new_len INT DEFAULT NULL,
  rc_deleted TINYINT UNSIGNED DEFAULT 0 NOT NULL,
  rc_logid INT UNSIGNED DEFAULT 0 NOT NULL,
  rc_log_type VARBINARY(255) DEFAULT NULL,
  rc_log_action VARBINARY(255) DEFAULT NULL,
  rc_params BLOB DEFAULT NULL,
  INDEX rc_timestamp (rc_timestamp),
  INDEX rc_namespace_title_timestamp (rc_namespace, rc_title, rc_timestamp),
  INDEX rc_cur_id (rc_cur_id),
  INDEX rc_ip (rc_ip),
  PRIMARY KEY(rc_id)
) ENGINE=InnoDB, DEFAULT CHARSET=binary;

CREATE TABLE objectcache (
  keyname VARBINARY(255) DEFAULT '' NOT NULL,
  value MEDIUMBLOB DEFAULT NULL,
  exptime BINARY(14) NOT NULL,
  INDEX exptime (exptime),
  PRIMARY KEY(keyname)
) ENGINE=InnoDB, DEFAULT CHARSET=binary;

CREATE TABLE watchlist (
  wl_id INT UNSIGNED AUTO_INCREMENT NOT NULL,
  wl_user INT UNSIGNED NOT NULL,
  wl_namespace INT DEFAULT 0 NOT NULL,
  wl_title VARBINARY(255) DEFAULT '' NOT NULL,
  wl_notificationtimestamp BINARY(14) DEFAULT NULL,
  UNIQUE INDEX wl_user (wl_user, wl_namespace, wl_title),
  INDEX wl_namespace_title (wl_namespace, wl_title),
  INDEX wl_user_notificationtimestamp (wl_user, wl_notificationtimestamp),
  PRIMARY KEY(wl_id)
) ENGINE=InnoDB, DEFAULT CHARSET=binary;
