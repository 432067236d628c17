// Where the data is: every namespace with its current memories, decisions and traces, newest write first (start here when a query says "no records").
// mode: read
// returns: many
// :params {}
MATCH (m:Memory)
WHERE m.system_to IS NULL
WITH m.namespace AS namespace, count(*) AS memories,
     sum(CASE WHEN m:Decision THEN 1 ELSE 0 END) AS decisions,
     sum(CASE WHEN m:ReasoningTrace THEN 1 ELSE 0 END) AS traces,
     max(m.system_from) AS last_write
RETURN namespace, memories, decisions, traces, last_write,
       ":params {namespace: '" + namespace + "', decision: '', evidence_id: '', limit: 10, since: '', until: '', recognized: ['user', 'ingestion', 'maintenance']}" AS paste_to_explore_it
ORDER BY last_write DESC
