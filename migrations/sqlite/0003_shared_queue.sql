-- Kept alike with PostgreSQL's schema; a SQLite store serves one server, whose queue is in
-- its memory, so these stay empty.
ALTER TABLE runs ADD COLUMN request TEXT;
ALTER TABLE runs ADD COLUMN caller TEXT;
