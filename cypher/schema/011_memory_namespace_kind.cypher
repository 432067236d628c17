// Range index for listing and counting memories of one namespace by kind.
// mode: schema
// returns: none
CREATE INDEX memory_namespace_kind IF NOT EXISTS FOR (m:Memory) ON (m.namespace, m.kind)
