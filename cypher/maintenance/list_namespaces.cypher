// Every namespace that holds at least one memory: the scheduler's work list (the one read not scoped to a namespace).
// mode: read
// returns: many
MATCH (m:Memory)
WITH DISTINCT m.namespace AS namespace
WHERE namespace IS NOT NULL
RETURN namespace
ORDER BY namespace
