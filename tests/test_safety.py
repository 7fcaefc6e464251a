"""The read-only guard: every writing or system-touching clause is refused, reads pass."""

import pytest

from kgqa.kg.safety import FORBIDDEN, UnsafeQueryError, check_read_only, skeleton

WRITES = {
    "CREATE": "CREATE (m:Movie {title: 'x'})",
    "MERGE": "MERGE (p:Person {name: 'x'})",
    "SET": "MATCH (m:Movie) SET m.title = 'x'",
    "DELETE": "MATCH (m:Movie) DELETE m",
    "DETACH": "MATCH (m:Movie) DETACH DELETE m",
    "REMOVE": "MATCH (m:Movie) REMOVE m.tagline",
    "DROP": "DROP TABLE Movie",
    "ALTER": "ALTER TABLE Movie ADD x INT64",
    "COPY": "COPY Movie FROM '/etc/passwd'",
    "LOAD": "LOAD FROM '/etc/passwd' RETURN *",
    "INSTALL": "INSTALL httpfs",
    "ATTACH": "ATTACH '/tmp/x.kuzu' AS x",
    "EXPORT": "EXPORT DATABASE '/tmp/out'",
    "IMPORT": "IMPORT DATABASE '/tmp/out'",
}


@pytest.mark.parametrize("clause,query", sorted(WRITES.items()))
def test_each_forbidden_clause_is_refused(clause, query):
    with pytest.raises(UnsafeQueryError) as err:
        check_read_only(query)
    assert clause in str(err.value) or "not allowed" in str(err.value)


@pytest.mark.parametrize("query", [
    "MATCH (m:Movie) RETURN m.title",
    "MATCH (p:Person) WHERE p.name = 'DELETE me; CREATE' RETURN p.name",  # keywords inside strings are data
    "MATCH (o:`Order`) RETURN o.orderID // set a comment",
    "CALL show_tables() RETURN *",
    "MATCH (m:Movie) WITH m ORDER BY m.released DESC RETURN m.title LIMIT 3",
])
def test_reads_pass(query):
    check_read_only(query)


@pytest.mark.parametrize("query", [
    "MATCH (m) RETURN m; MATCH (n) DETACH DELETE n",
    "MATCH (m) /* hidden */ DETACH /**/ DELETE m",
    "MATCH (m) ＤＥＬＥＴＥ m",  # full-width letters fold to DELETE
    "MATCH (m) DE\u200bLETE m",  # zero-width space inside the keyword
    "CALL drop_fts_index('Movie', 'x')",
    "CALL clear_warnings()",
    "LOAD FROM 'file.csv' RETURN *",
    "RETURN read_csv('/etc/passwd')",
    "UNWIND range(1, 100000000) AS x RETURN count(x)",  # materialised before a timeout could stop it
    "",
    "   ",
])
def test_tricks_are_refused(query):
    with pytest.raises(UnsafeQueryError):
        check_read_only(query)


def test_skeleton_blanks_strings_comments_and_quoted_names():
    sk = skeleton("MATCH (o:`Order`) WHERE o.x = 'DELETE' // CREATE\nRETURN o")
    assert "DELETE" not in sk and "CREATE" not in sk and "Order" not in sk
    assert "MATCH" in sk and "RETURN" in sk


def test_forbidden_list_covers_the_issue():
    for word in ("CREATE", "MERGE", "SET", "DELETE", "DETACH", "REMOVE", "DROP", "ALTER", "COPY", "LOAD",
                 "INSTALL", "ATTACH", "EXPORT", "IMPORT"):
        assert word in FORBIDDEN


@pytest.mark.parametrize("query", [
    "MATCH (c:Comment) RETURN count(DISTINCT c)",  # a label that is a Kuzu keyword (COMMENT ON TABLE)
    "MATCH (c:Call)-[:Set]->(d:Delete) RETURN c.Update, d.create AS Merge",
    "MATCH (comment:Comment) RETURN comment.copy, comment.load",
    "MATCH (n) WHERE n.drop IS NOT NULL RETURN n . detach",
    "MATCH (o:`Order`)-[:`Comment`]->(x) RETURN x.`Set`",
])
def test_keywords_in_name_places_are_names(query):
    check_read_only(query)


@pytest.mark.parametrize("query", [
    "MATCH (c:Comment) DELETE c",
    "MATCH (c:Comment) SET c.content = 'x'",
    "MATCH (c:Comment) WITH c AS x DETACH DELETE x",
    "MATCH (c:Call) CALL clear_warnings() RETURN c",
    "RETURN {k: read_csv('/etc/passwd')}",  # a function after ':' is a call, not a name
    "RETURN [1, 2][0:size(range(1, 100000000))]",
    "RETURN {k: repeat('x', 100000000)}",
    "COMMENT ON TABLE Comment IS 'x'",
    "MATCH (n) RETURN n.x AS y UNION MATCH (m) REMOVE m.x RETURN m",
    "MATCH (n) WITH n, 1. DELETE n",  # after a number, '.' is no property access
])
def test_writes_beside_keyword_names_are_refused(query):
    with pytest.raises(UnsafeQueryError):
        check_read_only(query)
