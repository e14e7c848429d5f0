# taskgate: build a wheel, install it into a slim runtime, run as a non-root user.
FROM python:3.11-slim AS build
WORKDIR /src
COPY . .
RUN pip wheel --no-cache-dir --wheel-dir /wheels .

FROM python:3.11-slim
RUN useradd --system --uid 10001 --no-create-home taskgate
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir /wheels/*.whl && rm -rf /wheels
COPY examples/taskgate.yaml /etc/taskgate/config.yaml
ENV TASKGATE_CONFIG=/etc/taskgate/config.yaml \
    PYTHONUNBUFFERED=1
USER taskgate
EXPOSE 8080
# ready, not merely alive: the bundled config's engines are on 127.0.0.1, so until a config names reachable
# engines /readyz is 503 and the container is unhealthy, rather than healthy while every call is a 502
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8080/readyz', timeout=2)"]
ENTRYPOINT ["taskgate"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8080"]
