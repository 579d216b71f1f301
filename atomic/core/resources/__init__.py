"""Resources loaded from disk: context files, system prompt, prompt templates and skills."""
