// Fulltext index over memory content (Lucene standard analyzer, stop words kept).
// mode: schema
// returns: none
CREATE FULLTEXT INDEX memory_content IF NOT EXISTS FOR (m:Memory) ON EACH [m.content] OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-no-stop-words'}}
