"""Widgets shared by several screens: the bank table, couplets, the key bar, blind questions, row tables
and line views. Modal screens are in ``dialogs/``, Persian text fields in ``fields/``, the report's
tabs in ``report/``, the run job manager in ``jobs.py``."""
