-- The temperature a group is sampled at, decided when it is created: a member's later attempt (a
-- retry, or an evaluation released later) samples at it too, even if the trainer's terms moved on
-- meanwhile — the trainer refuses a group whose members were drawn at two temperatures.
ALTER TABLE groups ADD COLUMN temperature double precision;
