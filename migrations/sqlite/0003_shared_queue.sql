-- Kept alike with PostgreSQL's schema; a SQLite store serves one server, whose queue is in
-- its memory, so these stay empty.
ALTER TABLE runs ADD COLUMN request TEXT;
ALTER TABLE runs ADD COLUMN caller TEXT;
-- The hosts the request allowed (JSON), which its webhook is judged by wherever it is sent
-- from: a run's lock keeps only the sites it may visit.
ALTER TABLE runs ADD COLUMN callback_hosts TEXT;
