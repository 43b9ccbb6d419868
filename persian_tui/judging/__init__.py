"""Judging: an LLM classifies the errors of another run's answers, people review its verdicts.

`verdicts` (the default error taxonomy, the judge's prompt, the parser of its replies), `run`
(create and execute a judge run: `create_judge_run`, `execute_judge_run`), `distribution` (the
error categories per judged run, and how well the judge agrees with its reviewers)."""
