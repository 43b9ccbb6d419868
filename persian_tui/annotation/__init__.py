"""Human annotation: the annotators' votes and what is built on them.

`consensus` (each question's votes, the adjudication queue, bulk acceptance), `agreement`
(inter-annotator agreement and the human baseline), `label_files` (labels made elsewhere,
imported from CSV or JSONL)."""
