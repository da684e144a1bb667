"""The metric catalog: one YAML spec per metric and the JSON Schema they follow."""
