-- The wire dialect of a payin source (domain/wire-dialect.ts): how the payin
-- API answers a caller using this source's key. Existing sources keep the
-- interface spec's answers.
ALTER TABLE sources ADD COLUMN dialect TEXT NOT NULL DEFAULT 'spec' CHECK (dialect IN ('spec', 'acceptblue'));
