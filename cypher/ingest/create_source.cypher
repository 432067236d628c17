// Create the :Source node of a document handed in for ingestion, or find the one a concurrent first ingest created (unique per namespace and sha256); `created` says which.
// mode: write
// returns: one
// :param props => {uid: randomUUID(), namespace: 'default', name: 'notes.md', format: 'text', sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', size_bytes: 0, status: 'in_progress', unit_count: 1, attempts: 0, created_by_origin: 'ingestion', created_by_actor: 'cli', valid_from: datetime(), system_from: datetime()}
MERGE (s:Source {namespace: $props.namespace, sha256: $props.sha256})
ON CREATE SET s = $props
RETURN s.uid AS uid, s.uid = $props.uid AS created
