"""`persian-tui web`: the app for browsers, one app process per signed-in person (textual-serve,
behind a sign-in). ``auth``: sessions, signed cookies, lock-out; ``child``: the app process and
its environment; ``server``: the aiohttp routes. Needs the web extra: pip install 'persian-tui[web]'."""
