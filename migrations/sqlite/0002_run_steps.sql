-- The plan's steps (type and description, JSON), so a run whose server stopped can be
-- given a whole result: the steps it never reached are listed as skipped.
ALTER TABLE runs ADD COLUMN steps TEXT;
