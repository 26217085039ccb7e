"""The catalog: typed items, their store and indexes (columns, BM25 search, titles), the
saved catalog folder format, interactions, personas, and the builders that make catalogs."""
