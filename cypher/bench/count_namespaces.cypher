// Count the memory nodes of each given namespace (bench/tenancy.py: how much filler is stored; never used by the service).
// mode: read
// returns: many
// :param namespaces => ['bench_filler_00', 'bench_filler_01']
UNWIND $namespaces AS ns
MATCH (m:Memory {namespace: ns})
RETURN ns AS namespace, count(m) AS n
