"""The report screen's tabs and cells: leaderboard, pairs, groups, breakdowns, behaviour, charts,
the hardest questions, memory, and the question pop-up."""
