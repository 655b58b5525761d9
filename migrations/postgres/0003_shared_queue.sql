-- PostgreSQL is the queue: a queued run waits here, unowned (owner ''), with what a replica
-- needs to run it (`request`, cleared when claimed), in the order it was accepted.
ALTER TABLE runs ADD COLUMN request TEXT;
-- Who asked for it (the token, or the client's address), for the per-caller limit.
ALTER TABLE runs ADD COLUMN caller TEXT;
-- The hosts the request allowed (JSON), which its webhook is judged by wherever it is sent
-- from: a run's lock keeps only the sites it may visit.
ALTER TABLE runs ADD COLUMN callback_hosts TEXT;
ALTER TABLE runs ADD COLUMN accepted_seq BIGSERIAL;
CREATE INDEX runs_waiting ON runs (accepted_seq) WHERE status = 'queued';
CREATE INDEX runs_live_by_caller ON runs (caller) WHERE status IN ('queued', 'running');

-- Replicas LISTEN on these channels: a run queued wakes the idle ones, a cancel reaches the
-- replica running the run, an event or an end wakes whoever follows the run. Sent by the
-- database on commit, so no writer can forget one.
CREATE FUNCTION planlock_notify_runs() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.status = 'queued' AND NEW.owner = '' THEN
            PERFORM pg_notify('planlock_queued', NEW.id);
        END IF;
        RETURN NEW;
    END IF;
    IF NEW.cancel_requested <> OLD.cancel_requested AND NEW.cancel_requested <> 0 THEN
        PERFORM pg_notify('planlock_cancel', NEW.id);
    END IF;
    IF NEW.status <> OLD.status AND NEW.status NOT IN ('queued', 'running') THEN
        PERFORM pg_notify('planlock_ended', NEW.id);
    END IF;
    IF NEW.status = 'queued' AND NEW.owner = '' AND OLD.owner <> '' THEN
        PERFORM pg_notify('planlock_queued', NEW.id);
    END IF;
    RETURN NEW;
END
$$ LANGUAGE plpgsql;

CREATE TRIGGER runs_notify AFTER INSERT OR UPDATE ON runs
    FOR EACH ROW EXECUTE FUNCTION planlock_notify_runs();

CREATE FUNCTION planlock_notify_events() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify('planlock_event', NEW.run_id);
    RETURN NEW;
END
$$ LANGUAGE plpgsql;

CREATE TRIGGER run_events_notify AFTER INSERT ON run_events
    FOR EACH ROW EXECUTE FUNCTION planlock_notify_events();
