"""Credentials stay out of messages and reports: URLs are redacted, keys in the config file are refused at any
depth, and the errors say what happened (key unset, host unknown) without retrying what cannot succeed."""

import pytest
from _llm_support import FAST, client_for

from maze_envs.core.errors import MazeConfigError
from maze_envs.llm import ChatClient, LLMAuthError, LLMConnectionError, ModelConfig, ModelServer, load_model_config
from maze_envs.llm.errors import is_secret_name, redact_url
from maze_envs.llm.policies import PolicyReply, ScriptedPolicy, ScriptEntry

CANARY = "sk-CANARY-5f3e9a"


@pytest.mark.parametrize(("url", "shown"), [
    (f"http://user:{CANARY}@host/v1", "http://user:***@host/v1"),
    (f"http://{CANARY}@host:8080/v1", "http://***@host:8080/v1"),
    (f"https://host/v1?key={CANARY}&mode=fast", "https://host/v1?key=***&mode=fast"),
    (f"https://host/v1?api-key={CANARY}&access_token={CANARY}", "https://host/v1?api-key=***&access_token=***"),
    ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"),
])
def test_redact_url_hides_passwords_and_key_parameters(url, shown):
    assert redact_url(url) == shown


@pytest.mark.parametrize(("name", "secret"), [
    ("api_key", True), ("apiKey", True), ("token", True), ("client_secret", True), ("password", True),
    ("api_key_env", False), ("max_tokens", False), ("model", False), ("base_url", False),
])
def test_secret_names(name, secret):
    assert is_secret_name(name) is secret


def test_a_key_in_the_base_url_is_shown_nowhere(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    config = ModelConfig(model="m", base_url=f"http://user:{CANARY}@no-such-host.invalid/v1?key={CANARY}",
                         **FAST)
    client = ChatClient(config, sleep=lambda seconds: pytest.fail("an unknown host must not be retried"))
    with pytest.raises(LLMConnectionError, match="no-such-host.invalid") as err:
        client.chat("x")
    assert CANARY not in str(err.value) + client.base_url + str(config.describe())


@pytest.mark.parametrize("text", [
    f"model: m\napi_key: {CANARY}\n",
    f"model: {{api_key: {CANARY}}}\n",
    f"model: m\nprovider: openai\nextra:\n  - {{token: {CANARY}}}\n",
    f"model: m\npassword: {CANARY}\n",
])
def test_credentials_in_the_model_config_are_refused_at_any_depth(tmp_path, text):
    path = tmp_path / "model.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(MazeConfigError, match="is not allowed: keys come only from the environment") as err:
        load_model_config(path)
    assert CANARY not in str(err.value)


@pytest.mark.parametrize(("text", "message"), [
    ("model: m\ntimeout: .nan\n", "timeout: must be a finite number from 0 to 86400, got nan"),
    ("model: m\nbackoff_max: .inf\n", "backoff_max: must be a finite number from 0 to 86400, got inf"),
    ("model: m\nmax_retries: " + "7" * 5000 + "\n", "cannot read model config: Exceeds the limit"),
    ("model: m\n1: 2\n", "field names must be strings"),
    ("model: [a, b]\n", "model: must be a string"),
    ("model: m\nvideo_frames: 100000000\n", "video_frames: must be an integer from 1 to 1024, got 100000000"),
    ("a: &a [*a]\n", "YAML aliases are not accepted"),
    ("[" * 10_000 + "]" * 10_000, "nested too deeply"),
])
def test_model_config_values_that_would_fail_later_are_refused_now(tmp_path, text, message):
    path = tmp_path / "model.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(MazeConfigError, match=message) as err:
        load_model_config(path)
    assert len(str(err.value).replace(str(path), "FILE")) < 300  # brief whatever the length of the temp path


@pytest.mark.parametrize("encoding", ["utf-16", "latin-1"])
def test_a_model_config_that_is_not_utf8_is_a_config_error(tmp_path, encoding):
    path = tmp_path / "model.yaml"
    path.write_text("model: modèle\n", encoding=encoding)
    with pytest.raises(MazeConfigError, match="not UTF-8 text"):
        load_model_config(path)


def test_a_401_without_a_key_says_the_variable_is_unset(monkeypatch):
    monkeypatch.delenv("MY_UNSET_KEY", raising=False)
    with ModelServer(ScriptedPolicy([ScriptEntry(PolicyReply("x"))]), api_key="sk-needed") as server:
        with pytest.raises(LLMAuthError, match=r"no API key was sent \(\$MY_UNSET_KEY is unset\)"):
            client_for(server, api_key_env="MY_UNSET_KEY").chat("x")
