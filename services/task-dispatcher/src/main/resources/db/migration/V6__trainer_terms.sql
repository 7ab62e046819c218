-- The terms the trainer trains under (temperature, compact filter, max staleness, groups per
-- version, context length), as the newest checkpoint that stated them says; the dispatcher follows
-- them (null: its own settings).
ALTER TABLE scheduler ADD COLUMN trainer_terms jsonb;
ALTER TABLE scheduler ADD COLUMN terms_version bigint;
