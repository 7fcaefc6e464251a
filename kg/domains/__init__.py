"""The bundled graphs: one reader module per graph (``source_files(data_dir)`` and ``read(data_dir)``)
with its annotations file beside it (``<name>.json``). This list is the only place that names them."""

BUNDLED = ("nobel", "movies", "northwind")
