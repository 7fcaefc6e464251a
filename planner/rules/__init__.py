"""The rules reader of the bundled graphs (:func:`~kgqa.planner.rules.read.read`), its frame and its Cypher
generator: read where a graph's annotations carry its words, until the reader reads those graphs alone."""
