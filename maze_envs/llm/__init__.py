"""Chat-model layer: one client over the ``openai`` package, a response cache, and a local model server."""

from .asking import Ask, Asking, Meter, Tally, answer, ask
from .cache import ResponseCache, cache_key, default_cache_dir
from .client import LOCAL_FINGERPRINT, ChatClient, Reply, RunStats, Usage, build_messages, sum_usage
from .config import ModelConfig
from .errors import LLMAuthError, LLMConnectionError, LLMError, redact
from .factory import chat_client, load_model_config, local_client
from .policies import OraclePolicy, ScriptedPolicy, TextOnlyPolicy, load_policy
from .server import SERVER_NOTE, ChatRequest, ModelServer, PolicyReply

__all__ = [
    "Ask", "Asking", "Meter", "Tally", "answer", "ask",
    "LOCAL_FINGERPRINT", "SERVER_NOTE", "ChatClient", "ChatRequest", "LLMAuthError", "LLMConnectionError", "LLMError",
    "ModelConfig", "ModelServer", "OraclePolicy", "PolicyReply", "Reply", "ResponseCache", "RunStats",
    "ScriptedPolicy", "TextOnlyPolicy", "Usage", "build_messages", "sum_usage", "cache_key", "chat_client",
    "default_cache_dir", "load_model_config", "local_client",
    "load_policy", "redact",
]
