"""Evaluation: statistics, agreement and votes, embedders and outlier scorers, prompts, the answer
parser, the LLM client, the judge's prompt and verdicts, the report (inputs, sections, item
analysis, samples, shortcut cues). Nothing here writes: runs/ and the store do."""
