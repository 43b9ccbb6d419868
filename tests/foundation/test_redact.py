"""Secrets kept out of stored parameters and messages (redact.py)."""



def test_redacted_urls_keep_what_is_not_secret():
    from persian_tui import redact

    assert redact.url("https://h/v1?key=abc&v=2#frag") == "https://h/v1?key=***&v=2"
    assert redact.url("https://u:p@h/v1?sig=zz") == "https://***@h/v1?sig=***"
    assert redact.url("https://h/v1?deployment=gpt4&api-version=2024-01-01") == \
        "https://h/v1?deployment=gpt4&api-version=2024-01-01"
    assert redact.url("https://h/v1?x=AbCdEf0123456789AbCdEf") == "https://h/v1?x=***"  # looks like a key
    assert set(redact.url_secrets("https://h/v1?key=a%2Fbcd")) == {"a%2Fbcd", "a/bcd"}


SECRET_NAMES = [
    ("pretrained=https://bob:hunter2pass@host/m,dtype=float16", "hunter2pass"),
    ("model=gpt,api_key=sk-abcdefghijklmnop1234", "sk-abcdefghijklmnop1234"),
    ("pretrained=org/m,token=hf_AbCdEfGhIjKlMnOpQrStUv", "hf_AbCdEfGhIjKlMnOpQrStUv"),
    ("hf_AbCdEfGhIjKlMnOpQrStUv", "hf_AbCdEfGhIjKlMnOpQrStUv"),
    ("openai/gpt-4o?api_key=abc123secret", "abc123secret"),
    ("openai/gpt-4o?x=1&API-KEY=abc123secret", "abc123secret"),
    ("401 Client Error: token Bearer hf_AbCdEfGhIjKlMnOpQrStUv for url", "hf_AbCdEfGhIjKlMnOpQrStUv"),
    ("Authorization: Bearer hf_AbCdEfGhIjKlMnOpQrStUv", "hf_AbCdEfGhIjKlMnOpQrStUv"),
    ("headers={'authorization': 'Bearer xyzxyzxyz'}", "xyzxyzxyz"),
]


def test_secrets_in_names_and_messages_are_masked():
    """One function (redact.text) masks every secret a model name from a log or an error can hold."""
    import pytest as _pytest  # noqa: F401

    from persian_tui import redact

    for value, secret in SECRET_NAMES:
        masked = redact.text(value)
        assert secret not in masked, value
        assert redact.MASK in masked, value
    assert redact.text("org/model-7b") == "org/model-7b"
    assert redact.text("pretrained=org/model-7b,dtype=float16") == "pretrained=org/model-7b,dtype=float16"
