"""Base model for everything that crosses the wire: camelCase JSON, None fields omitted.

Fields listed in ``_keep_null`` are written as ``null`` instead of being dropped, because the
protocol shows them explicitly (for example ``fullOutputPath`` or ``firstKeptEntryId``).
"""

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, model_serializer
from pydantic.alias_generators import to_camel


class WireModel(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="allow",
        validate_assignment=False,
        ser_json_inf_nan="null",
        # Build validators on first use: most event and message types never occur in a short run,
        # and building them all at import costs a large share of start-up time.
        defer_build=True,
    )

    _keep_null: ClassVar[frozenset[str]] = frozenset()

    @model_serializer(mode="wrap")
    def _drop_nones(self, handler: Any) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            keep = self._keep_null
            return {k: v for k, v in data.items() if v is not None or k in keep}
        return data

    def to_wire(self) -> dict[str, Any]:
        """The JSON-ready dict as the protocol spells it."""
        return self.model_dump(mode="json", by_alias=True)
