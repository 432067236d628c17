// Range index to find every version of a memory by its stable id.
// mode: schema
// returns: none
CREATE INDEX memory_memory_id IF NOT EXISTS FOR (m:Memory) ON (m.memory_id)
