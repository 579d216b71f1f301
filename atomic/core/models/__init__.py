"""Model catalog, registry (built-ins + models.json), credentials lookup, thinking levels, --model resolution."""

from atomic.core.models.cost import compute_cost
from atomic.core.models.registry import LOCAL_PLACEHOLDER_KEY, ModelRegistry
from atomic.core.models.resolver import (
    ModelResolutionError,
    ResolvedModel,
    choose_initial_model,
    format_models_table,
    resolve_model,
    resolve_scoped_models,
)
from atomic.core.models.setup_help import no_model_message
from atomic.core.models.thinking import clamp_level, next_level, supported_levels

__all__ = [
    "LOCAL_PLACEHOLDER_KEY",
    "ModelRegistry",
    "ModelResolutionError",
    "ResolvedModel",
    "choose_initial_model",
    "clamp_level",
    "compute_cost",
    "format_models_table",
    "next_level",
    "no_model_message",
    "resolve_model",
    "resolve_scoped_models",
    "supported_levels",
]
