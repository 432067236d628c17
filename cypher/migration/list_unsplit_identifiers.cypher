// Memories the service wrote (they have a lexical field) whose identifier parts may be missing or out of date: those holding parts, and those without whose content may hold a compound identifier (a letter or digit, `_` or `.`, a letter or digit; a lower-case letter or digit before an upper-case one; or two upper-case letters before two lower-case ones, as in HTTPServer; a number written with a leading zero, as in ADR-0045, or two letters joined to two digits, as in ADR014; any script): the next $limit after uid $after, in uid order, with the parts they hold (the caller compares them with `identifier_parts`).
// mode: read
// returns: many
// :param namespace => null
// :param after => ''
// :param limit => 1000
MATCH (m:Memory)
WHERE m.uid > $after AND m.search_text IS NOT NULL
  AND ($namespace IS NULL OR m.namespace = $namespace)
  AND (m.search_parts IS NOT NULL
       OR m.content =~ '(?s).*([\\p{L}\\p{N}][_.]+[\\p{L}\\p{N}]|[\\p{Ll}\\p{N}]\\p{Lu}|\\p{Lu}\\p{Lu}\\p{Ll}\\p{Ll}|(?<![\\p{L}\\p{N}])0[0-9]{2}|\\p{L}\\p{L}[0-9]{2}).*')
RETURN m.uid AS uid, m.content AS content, m.search_parts AS parts
ORDER BY uid
LIMIT $limit
