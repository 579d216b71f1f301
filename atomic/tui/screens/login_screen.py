"""/login and /logout: pick a provider (with its key status); login then asks for an API key. The screen
returns a `LoginChoice`; the caller stores or removes the key through the engine.

Keys go to `<agentDir>/auth.json` (mode 0600). The key box is a password field and
the key is never echoed in notifications.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from textual import on
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Input, Static
from textual.widgets.option_list import Option

from atomic.tui.formatting import tilde
from atomic.tui.screens._picker import PickerScreen
from atomic.tui.screens.fuzzy import fuzzy_filter

if TYPE_CHECKING:
    from atomic.core.contract import AuthStatus, Engine, Model, ProviderAuth

LOCAL_SERVER_HINT = (
    "A GitHub Copilot or ChatGPT Plus/Pro subscription? Pick github-copilot or openai-codex. A local server? "
    'List the models it serves under "ollama", "lmstudio", "llama-cpp" or "vllm" in {agent_dir}/models.json.'
)


@dataclass(frozen=True)
class LoginChoice:
    """What /login or /logout decided: store `api_key` for `provider`, run its subscription login
    (`subscription`), or (neither) remove its stored key or login."""

    provider: str
    api_key: str | None = None
    subscription: bool = False


def select_provider_model(engine: Engine, provider: str) -> Model | None:
    """After a login: the provider's default model becomes the current one (and the saved default), unless a
    model of that provider is already in use. None when the provider has no usable model."""
    current = engine.models.model
    if current is not None and current.provider == provider and engine.models.has_auth(current):
        return current
    own = [m for m in engine.models.available_models() if m.provider == provider]
    if not own:
        return None
    preferred = engine.models.provider_auth(provider).default_model_id
    model = next((m for m in own if m.id == preferred), own[0])
    engine.models.set_model(model.provider, model.id, persist=True)
    return model


def logout_text(engine: Engine, provider: str) -> str:
    """What a logout changes for the next message."""
    what = "login" if engine.models.provider_auth(provider).auth == "oauth" else "stored key"
    done = f"Logged out of {provider}: its {what} is removed."
    current = engine.models.model
    if current is None or current.provider != provider:
        return done
    auth = engine.models.provider_auth(provider)
    if engine.models.has_auth(current):
        status = auth.status
        source = f"${status.label}" if status.label else str(status.source or "another source")
        return f"{done} {current.id} still gets a key from {source}, so it keeps working."
    others = {m.key for m in engine.models.available_models() if m.provider != provider}
    if others:
        count = len(others)
        return (
            f"{done} {current.id} has no key now: the next message is refused until you pick another model "
            f"(ctrl+l, {count} available) or /login again."
        )
    env = auth.env_var
    hint = f"/login or set ${env}" if env else "/login"
    return f"{done} No model has a key now: {hint} to keep chatting."


def describe_status(status: AuthStatus) -> tuple[str, str]:
    """(text, style) for a provider's auth status."""
    if not status.configured:
        return "not configured", "$foreground-muted"
    source = status.source
    if source == "stored":
        return "✓ key stored (auth.json)", "$text-success"
    if source == "environment":
        return f"✓ ${status.label or 'env'}", "$text-success"
    if source == "models_json":
        return "✓ models.json", "$text-success"
    if source == "runtime":
        return "✓ --api-key", "$text-success"
    return f"✓ {source}", "$text-success"


class LoginScreen(PickerScreen[LoginChoice]):
    PLACEHOLDER = "Search providers"
    EMPTY_TEXT = "No providers"

    def __init__(self, engine: Engine, mode: Literal["login", "logout"] = "login") -> None:
        super().__init__()
        self.engine = engine
        self.mode = mode
        self.title_text = "Log in to a provider" if mode == "login" else "Log out of a provider"
        self.hint = (
            "↑↓ move · enter choose · esc close" if mode == "login" else "↑↓ move · enter remove stored key · esc close"
        )
        self.empty_text = "No providers" if mode == "login" else "No stored keys to remove"
        self.pending_provider: str | None = None

    def on_mount(self) -> None:
        super().on_mount()
        panel = self.query_one(".atomic-panel", Vertical)
        key_box = Vertical(
            Static("", id="login-key-title"),
            Input(password=True, id="login-key", placeholder="Paste the API key and press enter"),
            id="login-key-box",
        )
        key_box.display = False
        panel.mount(key_box, before=self.query_one(".panel-hint"))

    def _providers(self) -> list[ProviderAuth]:
        providers = self.engine.models.providers()
        if self.mode == "logout":
            providers = [p for p in providers if p.status.source == "stored"]
        return providers

    def build_options(self, query: str) -> list[Option]:
        providers = fuzzy_filter(query, [(p.provider, p) for p in self._providers()])
        width = max((len(p.provider) for p in providers), default=0) + 2
        options = []
        for auth in providers:
            text, style = describe_status(auth.status)
            if auth.auth == "oauth":
                text, style = ("✓ logged in (auth.json)", "$text-success") if auth.status.configured else (
                    "subscription login", "$foreground-muted")
            parts: list[str | tuple[str, str]] = [(auth.provider.ljust(width), "bold"), (text, style)]
            if auth.env_var and self.mode == "login" and not auth.status.configured:
                parts.append((f"  (or set ${auth.env_var})", "$foreground-muted"))
            options.append(Option(Content.assemble(*parts), id=auth.provider))
        return options

    def info_text(self) -> str | Content:
        if self.mode == "login":
            return LOCAL_SERVER_HINT.format(agent_dir=tilde(self.engine.agent_dir))
        return ""

    async def choose(self, option_id: str) -> None:
        if self.mode == "logout":
            self.dismiss(LoginChoice(option_id))
            return
        if self.engine.models.provider_auth(option_id).auth == "oauth":
            self.dismiss(LoginChoice(option_id, subscription=True))
            return
        self._ask_for_key(option_id)

    # ------------------------------------------------------------------ key entry

    def _ask_for_key(self, provider: str) -> None:
        self.pending_provider = provider
        env = self.engine.models.provider_auth(provider).env_var
        title = f"API key for {provider}"
        if env:
            title += f" (instead of ${env}); stored in auth.json"
        self.query_one("#login-key-title", Static).update(Content.styled(title, "bold"))
        for widget in (self.query_one("#picker-search"), self.option_list, self.query_one(".panel-info")):
            widget.display = False
        self.query_one("#login-key-box").display = True
        self.query_one(".panel-hint", Static).update("enter save · esc back to the providers")
        self.query_one("#login-key", Input).focus()

    def _back_to_list(self) -> None:
        self.pending_provider = None
        key_input = self.query_one("#login-key", Input)
        key_input.value = ""
        self.query_one("#login-key-box").display = False
        self.query_one("#picker-search").display = True
        self.option_list.display = True
        self.query_one(".panel-hint", Static).update(self.HINT)
        self.refresh_options()
        self.query_one("#picker-search", Input).focus()

    def action_cancel(self) -> None:
        if self.pending_provider is not None:
            self._back_to_list()
        else:
            self.dismiss(None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # The list keys do nothing while the key box is shown.
        if self.pending_provider is not None and action in ("move", "page"):
            return False
        return True

    @on(Input.Submitted, "#login-key")
    def _key_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        provider = self.pending_provider
        key = event.value.strip()
        if provider is None:
            return
        if not key:
            self.notify("The key is empty", severity="warning")
            return
        self.dismiss(LoginChoice(provider, key))
