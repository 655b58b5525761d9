#!/usr/bin/env bash
# Replays every committed plan against the app under test and writes the reports CI keeps:
# JUnit XML (a test suite per plan, a test case per step) and a static HTML report with a
# screenshot of every step. The same commands run in GitHub Actions, in GitLab CI and on a
# laptop; tests/it/ci_pipeline.rs runs this script.
#
#   BASE_URL   where the app under test listens          (default http://127.0.0.1:8025)
#   SMTP       where planlock's embedded inbox listens;
#              the app under test sends its mail there    (default 127.0.0.1:2525)
#   DOMAIN     the mail domain of the run addresses       (default demo.planlock.test)
#   PLANS      the directory of plan files                (default plans)
#   REPORTS    where the reports go                       (default reports)
# Secrets come from PLANLOCK_SECRET_NAME variables (CI secrets), never from the plans.
set -euo pipefail

BASE_URL="${BASE_URL:-http://127.0.0.1:8025}"
SMTP="${SMTP:-127.0.0.1:2525}"
DOMAIN="${DOMAIN:-demo.planlock.test}"
PLANS="${PLANS:-plans}"
REPORTS="${REPORTS:-reports}"

mkdir -p "$REPORTS"
# planlock expands the quoted glob itself, and says so when it matches nothing.
exec planlock run "$PLANS/*.json" \
    --var "base_url=$BASE_URL" \
    --var "password=${DEMO_PASSWORD:-correct horse battery staple}" \
    --inbox "smtp://$SMTP?domain=$DOMAIN" \
    --jobs 2 \
    --screenshots all \
    --report "$REPORTS/html" \
    --junit "$REPORTS/junit.xml"
