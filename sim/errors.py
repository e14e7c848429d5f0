"""OpenAI-style error bodies."""

from aiohttp import web


class ApiError(Exception):
    """An error answered as ``{"error": {"message", "type", "param", "code"}}``."""

    def __init__(
        self,
        status: int,
        message: str,
        kind: str = "invalid_request_error",
        param: str | None = None,
        code: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.kind = kind
        self.param = param
        self.code = code

    def body(self) -> dict[str, object]:
        """The JSON body."""
        error = {"message": self.message, "type": self.kind}
        return {"error": {**error, "param": self.param, "code": self.code}}

    def response(self) -> web.Response:
        """The HTTP response."""
        return web.json_response(self.body(), status=self.status)


def bad_request(message: str, param: str | None = None) -> ApiError:
    """A 400 for an invalid request."""
    return ApiError(400, message, param=param)


def model_not_found(model: str) -> ApiError:
    """A 404 for a model this engine does not serve."""
    message = f"The model `{model}` does not exist or you do not have access to it."
    return ApiError(404, message, code="model_not_found")
