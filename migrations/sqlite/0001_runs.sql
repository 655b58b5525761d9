-- Runs, their events as they happened, and their failure screenshots.
CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    -- queued | running | succeeded | failed | cancelled
    status TEXT NOT NULL,
    -- The replica that runs it; it renews heartbeat_ms while the run is live.
    owner TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    started_ms BIGINT,
    finished_ms BIGINT,
    heartbeat_ms BIGINT NOT NULL,
    -- Set by DELETE on any replica; the owner cancels the run when it sees it.
    cancel_requested BIGINT NOT NULL DEFAULT 0,
    steps_total BIGINT NOT NULL,
    plan_name TEXT,
    -- JSON array of the lock's sites.
    allowed_hosts TEXT NOT NULL,
    summary TEXT,
    -- The result JSON once the run has ended.
    result TEXT,
    callback_url TEXT,
    -- pending | delivered | failed
    callback_status TEXT,
    callback_attempts BIGINT NOT NULL DEFAULT 0,
    callback_error TEXT
);
CREATE INDEX runs_by_created ON runs (created_ms, id);
CREATE INDEX runs_by_status ON runs (status, created_ms, id);
CREATE INDEX runs_by_owner ON runs (owner, status);

CREATE TABLE run_events (
    run_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    event TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
);

CREATE TABLE screenshots (
    run_id TEXT NOT NULL,
    file TEXT NOT NULL,
    png BLOB NOT NULL,
    PRIMARY KEY (run_id, file)
);
