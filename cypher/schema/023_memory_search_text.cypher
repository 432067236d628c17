// Migration (idempotent): every memory written before the lexical field existed gets search_text = content and its namespace token search_ns ('ns' + each character's two-digit position in the namespace alphabet, as service/domain/text/lexical.py writes it).
// mode: schema
// returns: none
MATCH (m:Memory)
WHERE m.search_text IS NULL OR m.search_ns IS NULL
CALL (m) {
  SET m.search_text = coalesce(m.search_text, m.content),
      m.search_ns = 'ns' + reduce(s = '', c IN split(m.namespace, '') |
        s + CASE
              WHEN size(split('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-', c)) = 2
              THEN right('0' + toString(size(split('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-', c)[0])), 2)
              ELSE '64'
            END)
} IN TRANSACTIONS OF 10000 ROWS
