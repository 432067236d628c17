// Current memory versions of one namespace counted per kind and created_by_origin (missing values as '(missing)').
// mode: read
// returns: many
// :param namespace => 'default'
MATCH (m:Memory)
WHERE m.namespace = $namespace AND m.system_to IS NULL
RETURN coalesce(m.kind, '(missing)') AS kind, coalesce(m.created_by_origin, '(missing)') AS origin, count(*) AS n
ORDER BY kind, origin
