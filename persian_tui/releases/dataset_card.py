"""The release datasheet's `dataset_info` block: the column types of data/test.jsonl declared for
Hugging Face `datasets`, so `load_dataset(folder)` gives the same types whatever the rows hold (a
column null in every row, an option linked to the corpus or not, timestamps kept as text).
The YAML is written by hand (no YAML library needed); tests read it back with datasets' own
`Features._from_yaml_list`."""

from __future__ import annotations

PLACE = [("poem", "string"), ("couplet", "int64")]
CORPUS = [("status", "string"), ("poem", "string"), ("couplet", "int64"), ("poet", "string"),
          ("metre", "string"), ("method", "string"), ("score", "float64"), ("also_in", ("list", PLACE)),
          ("candidates", ("list", PLACE))]
OPTION = [("position", "int64"), ("mesra1", "string"), ("mesra2", "string"), ("order", "string"),
          ("poet", "string"), ("corpus", ("struct", CORPUS))]
# bank/jsonl.py's record, key for key (schema version 5: every key a record or an option may hold)
FEATURES = [("schema_version", "int64"), ("uid", "string"), ("status", "string"), ("stem", "string"),
            ("options", ("list", OPTION)), ("key", "int64"), ("explanation", "string"), ("category", "string"),
            ("poet", "string"), ("sources", ("list", [("name", "string"), ("id", "string")])),
            ("source_page", "int64"), ("tags", ("list", "string")), ("author", "string"), ("created_at", "string"),
            ("updated_at", "string"), ("origin", "string")]


def _features(fields, indent: str) -> list[str]:
    out = []
    for name, kind in fields:
        out.append(f"{indent}- name: {name}")
        if isinstance(kind, str):
            out.append(f"{indent}  dtype: {kind}")
        elif isinstance(kind[1], str):  # a list of plain values
            out.append(f"{indent}  {kind[0]}: {kind[1]}")
        else:
            out.append(f"{indent}  {kind[0]}:")
            out += _features(kind[1], indent + "  ")
    return out


def field_names() -> list[str]:
    """A record's top-level fields, in the record's order."""
    return [name for name, _ in FEATURES]


def dataset_info(split: str, rows: int, num_bytes: int) -> list[str]:
    """The YAML lines of the header's dataset_info (features, the one split, its rows and bytes:
    `datasets` wants all three, else it warns that the splits field is malformed)."""
    return ["dataset_info:", "  features:", *_features(FEATURES, "  "),
            "  splits:", f"  - name: {split}", f"    num_bytes: {num_bytes}", f"    num_examples: {rows}",
            f"  download_size: {num_bytes}", f"  dataset_size: {num_bytes}"]
