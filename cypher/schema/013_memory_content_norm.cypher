// Range index for idempotent writes: the normalised content of a memory.
// mode: schema
// returns: none
CREATE INDEX memory_content_norm IF NOT EXISTS FOR (m:Memory) ON (m.content_norm)
