"""The Agent Client Protocol frontend (`atomic --mode acp`): editors drive the engine over JSON-RPC.

It has no agent logic of its own: every behaviour is the engine's. The `acp` SDK is imported only
in this mode.
"""
