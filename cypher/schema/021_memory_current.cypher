// Migration (idempotent): every memory version written before `current` existed gets current = (system_to IS NULL), the vector index's in-index filter for current versions.
// mode: schema
// returns: none
MATCH (m:Memory)
WHERE m.current IS NULL
CALL (m) {
  SET m.current = m.system_to IS NULL
} IN TRANSACTIONS OF 10000 ROWS
