// The lexical field of each of one namespace's memories in the fulltext index, at most $limit of them: the namespace's vocabulary is counted from them (document frequency of every term, the document count and mean length), so a recall need not count its words in the index. The required namespace clause keeps other tenants out.
// mode: read
// returns: one
// values: plain
// :param index_name => 'memory_content'
// :param namespace_query => '+search_ns:ns29303041'
// :param limit => 20001
CALL db.index.fulltext.queryNodes($index_name, $namespace_query, {limit: $limit}) YIELD node
RETURN collect(coalesce(node.search_text, node.content, '')) AS texts
