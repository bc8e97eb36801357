-- Modelled on Gitea 1.20-1.22's tables as xorm creates them on MySQL
-- (written from memory, trimmed to the characteristic tables): BIGINT(20)
-- ids, TINYINT(1) booleans (NULL-able ones too), unix-timestamp BIGINT
-- columns (created_unix, updated_unix, deadline_unix; hook_task.delivered in
-- nanoseconds), TEXT and LONGTEXT holding JSON (repository.topics, hook_task
-- payloads), xorm's UQE_/IDX_ key names and many composite unique keys, no
-- foreign keys, utf8mb4_general_ci everywhere (unique keys that fold case:
-- email_address.email), `user`, `index`, `type`, `mode` as names, and
-- ROW_FORMAT=DYNAMIC. hook_task.payload_content is still TEXT here (older
-- installations); a mid-stream migration makes it LONGTEXT.

CREATE TABLE `user` (
  `id` BIGINT(20) NOT NULL AUTO_INCREMENT,
  `lower_name` VARCHAR(255) NOT NULL,
  `name` VARCHAR(255) NOT NULL,
  `full_name` VARCHAR(255) NULL,
  `email` VARCHAR(255) NOT NULL,
  `keep_email_private` TINYINT(1) NULL,
  `passwd` VARCHAR(255) NOT NULL,
  `passwd_hash_algo` VARCHAR(255) NOT NULL DEFAULT 'argon2',
  `login_type` INT(11) NULL,
  `rands` VARCHAR(32) NULL,
  `salt` VARCHAR(32) NULL,
  `language` VARCHAR(5) NULL,
  `created_unix` BIGINT(20) NULL,
  `updated_unix` BIGINT(20) NULL,
  `last_login_unix` BIGINT(20) NULL,
  `is_admin` TINYINT(1) NULL,
  `is_active` TINYINT(1) NULL,
  `prohibit_login` TINYINT(1) NOT NULL DEFAULT 0,
  `avatar` VARCHAR(2048) NOT NULL DEFAULT '',
  `num_repos` INT(11) NULL,
  `type` INT(11) NULL,
  `visibility` INT(11) NOT NULL DEFAULT 0,
  PRIMARY KEY (`id`),
  UNIQUE KEY `UQE_user_lower_name` (`lower_name`),
  UNIQUE KEY `UQE_user_name` (`name`),
  KEY `IDX_user_created_unix` (`created_unix`),
  KEY `IDX_user_is_active` (`is_active`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci ROW_FORMAT=DYNAMIC;

CREATE TABLE `email_address` (
  `id` BIGINT(20) NOT NULL AUTO_INCREMENT,
  `uid` BIGINT(20) NOT NULL,
  `email` VARCHAR(255) NOT NULL,
  `lower_email` VARCHAR(255) NOT NULL,
  `is_activated` TINYINT(1) NULL,
  `is_primary` TINYINT(1) NOT NULL DEFAULT 0,
  PRIMARY KEY (`id`),
  UNIQUE KEY `UQE_email_address_email` (`email`),
  UNIQUE KEY `UQE_email_address_lower_email` (`lower_email`),
  KEY `IDX_email_address_uid` (`uid`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci ROW_FORMAT=DYNAMIC;

CREATE TABLE `repository` (
  `id` BIGINT(20) NOT NULL AUTO_INCREMENT,
  `owner_id` BIGINT(20) NULL,
  `owner_name` VARCHAR(255) NULL,
  `lower_name` VARCHAR(255) NOT NULL,
  `name` VARCHAR(255) NOT NULL,
  `description` TEXT NULL,
  `website` VARCHAR(2048) NULL,
  `default_branch` VARCHAR(255) NULL,
  `num_watches` INT(11) NULL,
  `num_stars` INT(11) NULL,
  `num_issues` INT(11) NULL,
  `num_closed_issues` INT(11) NULL,
  `is_private` TINYINT(1) NULL,
  `is_empty` TINYINT(1) NULL,
  `is_archived` TINYINT(1) NULL,
  `is_fork` TINYINT(1) NOT NULL DEFAULT 0,
  `fork_id` BIGINT(20) NULL,
  `topics` TEXT NULL,
  `size` BIGINT(20) NOT NULL DEFAULT 0,
  `created_unix` BIGINT(20) NULL,
  `updated_unix` BIGINT(20) NULL,
  PRIMARY KEY (`id`),
  UNIQUE KEY `UQE_repository_s` (`owner_id`, `lower_name`),
  KEY `IDX_repository_lower_name` (`lower_name`),
  KEY `IDX_repository_is_private` (`is_private`),
  KEY `IDX_repository_updated_unix` (`updated_unix`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci ROW_FORMAT=DYNAMIC;

CREATE TABLE `issue` (
  `id` BIGINT(20) NOT NULL AUTO_INCREMENT,
  `repo_id` BIGINT(20) NULL,
  `index` BIGINT(20) NULL,
  `poster_id` BIGINT(20) NULL,
  `original_author` VARCHAR(255) NULL,
  `title` VARCHAR(255) NULL,
  `content` LONGTEXT NULL,
  `milestone_id` BIGINT(20) NULL,
  `priority` INT(11) NULL,
  `is_closed` TINYINT(1) NULL,
  `is_pull` TINYINT(1) NULL,
  `num_comments` INT(11) NULL,
  `ref` VARCHAR(255) NULL,
  `deadline_unix` BIGINT(20) NULL,
  `created_unix` BIGINT(20) NULL,
  `updated_unix` BIGINT(20) NULL,
  `closed_unix` BIGINT(20) NULL,
  `is_locked` TINYINT(1) NOT NULL DEFAULT 0,
  PRIMARY KEY (`id`),
  UNIQUE KEY `UQE_issue_repo_index` (`repo_id`, `index`),
  KEY `IDX_issue_is_closed` (`is_closed`),
  KEY `IDX_issue_poster_id` (`poster_id`),
  KEY `IDX_issue_deadline_unix` (`deadline_unix`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci ROW_FORMAT=DYNAMIC;

CREATE TABLE `comment` (
  `id` BIGINT(20) NOT NULL AUTO_INCREMENT,
  `type` INT(11) NULL,
  `poster_id` BIGINT(20) NULL,
  `issue_id` BIGINT(20) NULL,
  `label_id` BIGINT(20) NULL,
  `content` LONGTEXT NULL,
  `content_version` INT(11) NOT NULL DEFAULT 0,
  `patch` TEXT NULL,
  `commit_sha` VARCHAR(64) NULL,
  `line` BIGINT(20) NULL,
  `tree_path` VARCHAR(255) NULL,
  `invalidated` TINYINT(1) NULL,
  `created_unix` BIGINT(20) NULL,
  `updated_unix` BIGINT(20) NULL,
  PRIMARY KEY (`id`),
  KEY `IDX_comment_issue_id` (`issue_id`),
  KEY `IDX_comment_type` (`type`),
  KEY `IDX_comment_created_unix` (`created_unix`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci ROW_FORMAT=DYNAMIC;

CREATE TABLE `label` (
  `id` BIGINT(20) NOT NULL AUTO_INCREMENT,
  `repo_id` BIGINT(20) NULL,
  `org_id` BIGINT(20) NULL,
  `name` VARCHAR(255) NULL,
  `exclusive` TINYINT(1) NULL,
  `description` VARCHAR(255) NULL,
  `color` VARCHAR(7) NULL,
  `num_issues` INT(11) NULL,
  `num_closed_issues` INT(11) NULL,
  `created_unix` BIGINT(20) NULL,
  `updated_unix` BIGINT(20) NULL,
  PRIMARY KEY (`id`),
  KEY `IDX_label_repo_id` (`repo_id`),
  KEY `IDX_label_org_id` (`org_id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci ROW_FORMAT=DYNAMIC;

CREATE TABLE `issue_label` (
  `id` BIGINT(20) NOT NULL AUTO_INCREMENT,
  `issue_id` BIGINT(20) NULL,
  `label_id` BIGINT(20) NULL,
  PRIMARY KEY (`id`),
  UNIQUE KEY `UQE_issue_label_s` (`issue_id`, `label_id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci ROW_FORMAT=DYNAMIC;

CREATE TABLE `star` (
  `id` BIGINT(20) NOT NULL AUTO_INCREMENT,
  `uid` BIGINT(20) NULL,
  `repo_id` BIGINT(20) NULL,
  `created_unix` BIGINT(20) NULL,
  PRIMARY KEY (`id`),
  UNIQUE KEY `UQE_star_s` (`uid`, `repo_id`),
  KEY `IDX_star_created_unix` (`created_unix`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci ROW_FORMAT=DYNAMIC;

CREATE TABLE `watch` (
  `id` BIGINT(20) NOT NULL AUTO_INCREMENT,
  `user_id` BIGINT(20) NULL,
  `repo_id` BIGINT(20) NULL,
  `mode` SMALLINT(6) NOT NULL DEFAULT 1,
  `created_unix` BIGINT(20) NULL,
  `updated_unix` BIGINT(20) NULL,
  PRIMARY KEY (`id`),
  UNIQUE KEY `UQE_watch_watch` (`user_id`, `repo_id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci ROW_FORMAT=DYNAMIC;

CREATE TABLE `action` (
  `id` BIGINT(20) NOT NULL AUTO_INCREMENT,
  `user_id` BIGINT(20) NULL,
  `op_type` INT(11) NULL,
  `act_user_id` BIGINT(20) NULL,
  `repo_id` BIGINT(20) NULL,
  `comment_id` BIGINT(20) NULL,
  `is_deleted` TINYINT(1) NOT NULL DEFAULT 0,
  `ref_name` VARCHAR(255) NULL,
  `is_private` TINYINT(1) NOT NULL DEFAULT 0,
  `content` TEXT NULL,
  `created_unix` BIGINT(20) NULL,
  PRIMARY KEY (`id`),
  KEY `IDX_action_r_u_d` (`repo_id`, `user_id`, `is_deleted`),
  KEY `IDX_action_au_r_c_u_d` (`act_user_id`, `repo_id`, `created_unix`, `user_id`, `is_deleted`),
  KEY `IDX_action_comment_id` (`comment_id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci ROW_FORMAT=DYNAMIC;

CREATE TABLE `hook_task` (
  `id` BIGINT(20) NOT NULL AUTO_INCREMENT,
  `hook_id` BIGINT(20) NULL,
  `uuid` VARCHAR(255) NULL,
  `payload_content` TEXT NULL,
  `event_type` VARCHAR(255) NULL,
  `is_delivered` TINYINT(1) NULL,
  `delivered` BIGINT(20) NULL,
  `is_succeed` TINYINT(1) NULL,
  `request_content` TEXT NULL,
  `response_content` TEXT NULL,
  PRIMARY KEY (`id`),
  UNIQUE KEY `UQE_hook_task_uuid` (`uuid`),
  KEY `IDX_hook_task_hook_id` (`hook_id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci ROW_FORMAT=DYNAMIC;

CREATE TABLE `version` (
  `id` BIGINT(20) NOT NULL AUTO_INCREMENT,
  `version` BIGINT(20) NULL,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci ROW_FORMAT=DYNAMIC;
