"""Files in and out: importers (the seed's formats, the project's JSONL, labels, predictions,
reasoning, the Ganjoor corpus) and exporters (questions, labels, samples, items, reports,
releases; files.py writes them atomically and never over what is not a regular file)."""
