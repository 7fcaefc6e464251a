"""The reader: a question parsed by spaCy and read against the graph's own schema, component by component,
into a query tree (:func:`~kgqa.planner.reader.read.read_query`)."""
