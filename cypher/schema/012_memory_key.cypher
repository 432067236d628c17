// Range index for keyed facts: (namespace, subject, attribute).
// mode: schema
// returns: none
CREATE INDEX memory_key IF NOT EXISTS FOR (m:Memory) ON (m.namespace, m.subject, m.attribute)
