"""Reading tables and putting them on the declared domain: tables, encoding, counting, bundled examples."""
