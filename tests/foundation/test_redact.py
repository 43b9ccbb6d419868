"""Secrets kept out of stored parameters and messages (redact.py)."""



def test_redacted_urls_keep_what_is_not_secret():
    from persian_tui import redact

    assert redact.url("https://h/v1?key=abc&v=2#frag") == "https://h/v1?key=***&v=2"
    assert redact.url("https://u:p@h/v1?sig=zz") == "https://***@h/v1?sig=***"
    assert redact.url("https://h/v1?deployment=gpt4&api-version=2024-01-01") == \
        "https://h/v1?deployment=gpt4&api-version=2024-01-01"
    assert redact.url("https://h/v1?x=AbCdEf0123456789AbCdEf") == "https://h/v1?x=***"  # looks like a key
    assert set(redact.url_secrets("https://h/v1?key=a%2Fbcd")) == {"a%2Fbcd", "a/bcd"}
