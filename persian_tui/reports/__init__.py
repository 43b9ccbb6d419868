"""The evaluation report and the item analysis, their computations and their files.

`selection` (which runs, answers and questions a report is computed from), `figures`
(`build_report`: the report's sections), `ranking` (the one ranking rule, also the release's),
`pairs` (paired tests, intervals, power, groups), `clusters` (clustered standard errors),
`items` (item analysis), `samples` (repeated samples voted), `shortcuts` (surface cues that
find the key); `report_files`, `item_files` and `sample_files` write them as text, Markdown,
CSV, JSON and PNG; `notes` is the report screen's prose."""
