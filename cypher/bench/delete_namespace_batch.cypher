// Delete up to $n memory nodes of one bench namespace (bench/tenancy.py drops filler in batches; never used by the service).
// mode: write
// returns: one
// :param namespace => 'bench_filler_00'
// :param n => 10000
MATCH (m:Memory {namespace: $namespace})
WITH m LIMIT $n
DETACH DELETE m
RETURN count(*) AS deleted
