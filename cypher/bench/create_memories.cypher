// Create a batch of synthetic benchmark memories with precomputed embeddings (bench/recall.py; never used by the service).
// mode: write
// returns: one
// :param rows => [{label: 'Observation', props: {uid: randomUUID(), namespace: 'bench_10', memory_id: randomUUID(), version: 1, kind: 'observation', content: 'payments deploy failed on staging', valid_from: datetime(), system_from: datetime(), created_by_origin: 'user', created_by_actor: 'bench', last_modified_by_origin: 'user', last_modified_by_actor: 'bench'}}]
UNWIND $rows AS row
CREATE (m:Memory:$(row.label))
SET m = row.props
RETURN count(m) AS created
