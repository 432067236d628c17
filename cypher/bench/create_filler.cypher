// Create a batch of filler memories of other tenants, each embedding sent as a packed float32 vector and stored as a float list like the service's (bench/tenancy.py; never used by the service).
// mode: write
// returns: one
// :param rows => [{label: 'Observation', embedding: vector([0.6, 0.8], 2, FLOAT32), props: {uid: randomUUID(), namespace: 'bench_filler_00', memory_id: randomUUID(), version: 1, kind: 'observation', content: 'payments deploy failed on staging', valid_from: datetime(), system_from: datetime(), created_by_origin: 'user', created_by_actor: 'bench-filler', last_modified_by_origin: 'user', last_modified_by_actor: 'bench-filler'}}]
CYPHER 25
UNWIND $rows AS row
CREATE (m:Memory:$(row.label))
SET m = row.props, m.embedding = toFloatList(row.embedding)
RETURN count(m) AS created
