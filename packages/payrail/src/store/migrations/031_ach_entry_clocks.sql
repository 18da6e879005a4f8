-- Times of an ACH entry that later rules are judged from, fixed once written.
-- void_asked_at_ms: when its void was first written (service clock); a lost
-- void is asked again from then, however often the entry is rescheduled.
-- void_asked_ach_ms: the same moment on the merchant's ACH clock; the sandbox
-- network decides the void by it, so a void asked again answers as the first.
-- submitted_ach_ms: when the entry was reserved, on the merchant's ACH clock;
-- the refund wait is counted from it on that clock.
ALTER TABLE ach_entries ADD COLUMN void_asked_at_ms BIGINT;
ALTER TABLE ach_entries ADD COLUMN void_asked_ach_ms BIGINT;
ALTER TABLE ach_entries ADD COLUMN submitted_ach_ms BIGINT;
