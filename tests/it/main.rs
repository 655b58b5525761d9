//! Every integration test, in one binary: one link step, one shared Chromium, one fixture
//! site. Tests that need Chromium, Dovecot or PostgreSQL skip with a note outside CI and fail
//! in CI (`CI=true`) when it is missing.

mod util;

mod act;
mod answered;
mod blind;
mod browser;
mod ci_pipeline;
mod ci_signals;
mod cli_run;
mod corpus;
mod email_flows;
mod extract_codes;
mod extract_corpus;
mod gate;
mod gate_channels;
mod inbox_imap;
mod inbox_smtp;
mod journeys;
mod journeys_agent;
mod locator_answers;
mod lock_ports;
mod lock_probes;
mod look;
mod look_masked;
mod mail_links;
mod mcp;
mod mcp_agent;
mod person;
mod person_reach;
mod person_stock;
mod plan_fuzz;
mod planner;
mod private_addresses;
mod real_model;
mod report_html;
mod report_junit;
mod roles;
mod schema;
mod screenshot_mask;
mod screenshot_ocr;
mod serve;
mod serve_errors;
mod serve_handlers;
mod serve_inboxes;
mod serve_load;
mod serve_openapi;
mod serve_queue;
mod serve_replicas;
mod serve_security;
mod terminal_output;
mod validate_cli;
mod verdict;
mod verdict_stock;
