"""Session-tree controls of an AgentSession: new, switch, fork, clone, entries, tree, names, stats."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from atomic.core.events import SessionChanged, SessionInfoChanged
from atomic.core.messages import AssistantMessage, ToolResultMessage, UserMessage, user_text
from atomic.core.session.store import SessionStore

if TYPE_CHECKING:
    from atomic.core.engine.session import AgentSession


class SessionControls:
    # -------------------------------------------------------------- replacing the session

    async def _replace_store(self: AgentSession, store: SessionStore, reason: str) -> None:
        if self.is_streaming:
            await self.abort(continue_queue=False)
        previous = self.store.path
        self.store = store
        self.reload_context()
        self.restore_model_from_session()
        self.emit(SessionChanged(reason=reason, session_file=str(store.path) if store.path else None))
        if self.hooks.has("session_start"):
            await self.hooks.emit(
                "session_start", {"reason": reason, "previousSessionFile": str(previous) if previous else None}
            )

    def restore_model_from_session(self: AgentSession) -> None:
        """Apply the model and level recorded on the branch just loaded by `reload_context`."""
        ctx = self.loaded_context
        self.models.restore(ctx.provider, ctx.model_id, ctx.thinking_level)

    async def new_session(self: AgentSession, parent_session: str | None = None) -> bool:
        """Start a fresh session. Returns False when an extension cancelled it."""
        if await self.hooks.cancelled("session_before_switch", {"reason": "new", "targetSessionFile": None}):
            return False
        store = SessionStore.create(self.session_dir, self.cwd, parent_session)
        await self._replace_store(store, "new")
        self.models.record_current()
        return True

    async def switch_session(self: AgentSession, path: str) -> bool:
        target = Path(path).expanduser()
        if not target.is_absolute():
            target = self.cwd / target
        if await self.hooks.cancelled("session_before_switch", {"reason": "resume", "targetSessionFile": str(target)}):
            return False
        store = SessionStore.open(target)
        await self._replace_store(store, "resume")
        return True

    async def import_session(self: AgentSession, input_path: str) -> bool:
        """Copy a session file (every branch) into this folder's sessions and continue there."""
        source_path = Path(input_path).expanduser()
        if not source_path.is_absolute():
            source_path = self.cwd / source_path
        source = SessionStore.open(source_path)
        payload = {"reason": "import", "targetSessionFile": str(source_path)}
        if await self.hooks.cancelled("session_before_switch", payload):
            return False
        store = SessionStore.create(self.session_dir, self.cwd, str(source_path))
        for record in source.records:
            store.append_existing(dict(record.data))
        store.set_leaf(source.leaf_id)
        store.flush()
        await self._replace_store(store, "import")
        return True

    async def fork(self: AgentSession, entry_id: str) -> tuple[str, bool]:
        """A new session holding the path up to just before the user message `entry_id`."""
        record = self.store.by_id.get(entry_id)
        if record is None:
            raise ValueError(f"Entry not found: {entry_id}")
        data = record.data
        message = data.get("message") or {}
        if record.type != "message" or message.get("role") != "user":
            raise ValueError(f"Entry {entry_id} is not a user message")
        text = user_text(UserMessage.model_validate(message))
        if await self.hooks.cancelled("session_before_fork", {"entryId": entry_id, "position": "before"}):
            return text, True
        await self._branch_into_new_file(record.parent_id, "fork")
        return text, False

    async def clone(self: AgentSession) -> bool:
        if self.store.leaf_id is None:
            raise ValueError("Cannot clone session: no current entry selected")
        if await self.hooks.cancelled("session_before_fork", {"entryId": self.store.leaf_id, "position": "at"}):
            return False
        await self._branch_into_new_file(self.store.leaf_id, "fork")
        return True

    async def _branch_into_new_file(self: AgentSession, leaf_id: str | None, reason: str) -> None:
        source = self.store
        parent = str(source.path) if source.path else None
        store = SessionStore.create(self.session_dir, self.cwd, parent)
        path = source.path_to(leaf_id) if leaf_id else []
        labels = source.labels()
        for record in path:
            data = dict(record.data)
            store.append_existing(data)
        for record in path:
            if record.id in labels:
                store.append("label", targetId=record.id, label=labels[record.id][0])
        if path:
            store.set_leaf(path[-1].id)
        store.flush()
        await self._replace_store(store, reason)

    def get_fork_messages(self: AgentSession) -> list[dict[str, str]]:
        out = []
        for record in self.store.path_to():
            if record.type != "message":
                continue
            message = record.data.get("message") or {}
            if message.get("role") == "user":
                out.append({"entryId": record.id, "text": user_text(UserMessage.model_validate(message))})
        return out

    # -------------------------------------------------------------- tree navigation

    def get_entries(self: AgentSession, since: str | None = None) -> dict[str, Any]:
        return {"entries": self.store.entries_since(since), "leafId": self.store.leaf_id}

    def get_tree(self: AgentSession) -> dict[str, Any]:
        return {"tree": self.store.tree(), "leafId": self.store.leaf_id}

    async def navigate_to(self: AgentSession, entry_id: str | None) -> str | None:
        """Move the leaf (the /tree command). On a user message the leaf goes to its parent and the text
        is returned for the editor, so sending it again makes a new branch."""
        if self.is_streaming:
            await self.abort()
        text = None
        if entry_id is not None:
            record = self.store.by_id.get(entry_id)
            if record is None:
                raise ValueError(f"Entry not found: {entry_id}")
            message = record.data.get("message") or {}
            if record.type == "message" and message.get("role") == "user":
                text = user_text(UserMessage.model_validate(message))
                entry_id = record.parent_id
        self.store.set_leaf(entry_id)
        self.reload_context()
        self.emit(SessionChanged(reason="tree", session_file=str(self.store.path) if self.store.path else None))
        return text

    def set_label(self: AgentSession, entry_id: str, label: str | None) -> None:
        if entry_id not in self.store.by_id:
            raise ValueError(f"Entry not found: {entry_id}")
        # Appended in the chain (like every entry) so the tree has no dead-end branches; the model never
        # sees label entries.
        self.store.append("label", targetId=entry_id, label=label or None)

    def set_session_name(self: AgentSession, name: str) -> None:
        name = name.strip()
        if not name:
            raise ValueError("Session name cannot be empty")
        self.store.append("session_info", name=name)
        self.emit(SessionInfoChanged(name=name))

    # -------------------------------------------------------------- stats

    def session_stats(self: AgentSession) -> dict[str, Any]:
        messages = self.context_messages()
        tokens = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}
        cost = 0.0
        counts = {"user": 0, "assistant": 0, "toolCalls": 0, "toolResults": 0}
        for record in self.store.path_to():
            if record.type != "message":
                continue
            message = record.data.get("message") or {}
            role = message.get("role")
            if role == "user":
                counts["user"] += 1
            elif role == "assistant":
                counts["assistant"] += 1
                counts["toolCalls"] += sum(1 for b in message.get("content", []) if b.get("type") == "toolCall")
                usage = message.get("usage") or {}
                for key in ("input", "output", "cacheRead", "cacheWrite"):
                    tokens[key] += int(usage.get(key, 0) or 0)
                cost += float((usage.get("cost") or {}).get("total", 0) or 0)
            elif role == "toolResult":
                counts["toolResults"] += 1
        tokens["total"] = tokens["input"] + tokens["output"] + tokens["cacheRead"] + tokens["cacheWrite"]
        data: dict[str, Any] = {
            "sessionId": self.store.session_id,
            "userMessages": counts["user"],
            "assistantMessages": counts["assistant"],
            "toolCalls": counts["toolCalls"],
            "toolResults": counts["toolResults"],
            "totalMessages": len(messages),
            "tokens": tokens,
            "cost": round(cost, 6),
        }
        if self.store.path is not None:
            data["sessionFile"] = str(self.store.path)
        usage = self.context_usage()
        if usage is not None:
            data["contextUsage"] = usage
        return data

    def context_usage(self: AgentSession) -> dict[str, Any] | None:
        """Last valid assistant usage plus a chars/4 estimate of what came after it."""
        if self.model is None or not self.model.context_window:
            return None
        window = self.model.context_window
        if self.compacted_since_usage:
            return {"tokens": None, "contextWindow": window, "percent": None}
        from atomic.core.compaction.tokens import estimate_message_tokens

        messages = self.context_messages()
        tokens = 0
        start = 0
        for index in range(len(messages) - 1, -1, -1):
            message = messages[index]
            if (
                isinstance(message, AssistantMessage)
                and message.stop_reason not in ("error", "aborted")
                and message.usage.total_tokens
            ):
                u = message.usage
                tokens = u.total_tokens or (u.input + u.output + u.cache_read + u.cache_write)
                start = index + 1
                break
        for message in messages[start:]:
            tokens += estimate_message_tokens(message)
        return {"tokens": tokens, "contextWindow": window, "percent": round(tokens * 100 / window, 1)}

    def export_html(self: AgentSession, output_path: str | None = None) -> str:
        from atomic.core.export import default_export_path, write_session_html

        if self.store.path is None:
            raise ValueError("Cannot export in-memory session to HTML")
        entries = self.store.entries_since(None)
        if not any(e.get("type") == "message" for e in entries):
            raise ValueError("Nothing to export yet - start a conversation first")
        path = Path(output_path).expanduser() if output_path else default_export_path(self.store.path, self.cwd)
        if not path.is_absolute():
            path = self.cwd / path
        write_session_html(
            path,
            header=self.store.header,
            entries=entries,
            leaf_id=self.store.leaf_id,
            system_prompt=self.system_prompt,
            tools=[{"name": t.name, "description": t.description} for t in self.active_tools()],
            session_file=self.store.path,
        )
        return str(path)


def is_tool_result(message: Any) -> bool:
    return isinstance(message, ToolResultMessage)
