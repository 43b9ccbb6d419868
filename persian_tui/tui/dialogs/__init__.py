"""The modal screens (dialogs) of the app: confirmations and prompts, the merge of two people's edits,
a setting, the run form, the review's dialogs and the error-category form."""
