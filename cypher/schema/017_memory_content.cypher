// Fulltext index over the lexical field of a memory (search_text: its text in context) and its namespace token (search_ns), `english` analyzer (stemming, English stop words); a required search_ns clause keeps a query inside one namespace. content and namespace are indexed too, for memories not written by the service (no search_text / search_ns).
// mode: schema
// returns: none
CREATE FULLTEXT INDEX memory_content IF NOT EXISTS FOR (m:Memory) ON EACH [m.search_text, m.search_ns, m.content, m.namespace] OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
