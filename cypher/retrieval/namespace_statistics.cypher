// BM25 statistics of one namespace in the fulltext index, for namespace-local scoring: how many of its memories the index holds and their mean lexical-field length in characters (when $with_size), and for each word query how many of them match it (document frequency). Every count is restricted to the namespace by the query's required namespace clause, so no other tenant moves it.
// mode: read
// returns: one
// values: plain
// :param index_name => 'memory_content'
// :param namespace_query => '+search_ns:ns29303041'
// :param with_size => true
// :param queries => ['+search_ns:ns29303041^0 +search_text:(upload)', '+search_ns:ns29303041^0 +search_text:(fail)']
CALL () {
  WITH 1 AS one WHERE $with_size
  CALL db.index.fulltext.queryNodes($index_name, $namespace_query) YIELD node
  RETURN count(node) AS n, avg(size(coalesce(node.search_text, node.content, ''))) AS mean_chars
}
CALL () {
  UNWIND range(0, size($queries) - 1) AS i
  CALL (i) {
    CALL db.index.fulltext.queryNodes($index_name, $queries[i]) YIELD node
    RETURN count(node) AS df
  }
  WITH i, df ORDER BY i
  RETURN collect(df) AS dfs
}
RETURN n, mean_chars, dfs
