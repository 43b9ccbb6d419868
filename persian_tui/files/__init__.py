"""Safe file access, under every reader and writer of the other packages.

`inputs` opens an input file (regular files only, under a size cap) and defines `InputError`,
the error every reader raises; `outputs` writes every export, report and release file
(atomically, never over a database or what is not a regular file); `records` reads a CSV, JSON or
JSONL file into records, each valid or with the reason it is not."""
